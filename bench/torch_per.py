"""PyTorch baseline for the CUDA replay benchmark (bench/RESULTS.md): proportional PER written the
usual way in PyTorch -- a flat priority array, cumsum + searchsorted for stratified sampling,
gather of the transitions, IS weights normalised by the buffer's smallest priority, and a scatter
priority update -- captured in a torch CUDA graph and replayed, timed with CUDA events: one step
per graph, and 16 steps per graph (as the native bench's "step x16" column: the graph's launch
cost is shared).

Usage: python3 bench/torch_per.py [--capacity 1000000 ...] [--batch 256 ...]
Prints one JSON line per (capacity, batch) and a table. Same shapes as the native bench:
state_dim 51, f32 states, f64 priorities.
"""
import argparse
import json

import torch


def make_step(capacity, batch, dim, alpha=0.6, beta=0.4, eps=1e-6, dev="cuda"):
    torch.manual_seed(1)
    states = torch.randn(capacity, dim, device=dev)
    next_states = torch.randn(capacity, dim, device=dev)
    actions = torch.randint(0, 45, (capacity,), device=dev, dtype=torch.int32)
    rewards = torch.randn(capacity, device=dev)
    dones = torch.zeros(capacity, device=dev, dtype=torch.uint8)
    prio = torch.rand(capacity, device=dev, dtype=torch.float64) + 0.1  # p^alpha
    td = torch.rand(batch, device=dev) * 3
    offsets = torch.arange(batch, device=dev, dtype=torch.float64)
    out = {}

    def step():
        cdf = torch.cumsum(prio, 0)
        total = cdf[-1]
        u = (offsets + torch.rand(batch, device=dev, dtype=torch.float64)) * (total / batch)
        idx = torch.searchsorted(cdf, u, right=True).clamp_(max=capacity - 1)
        p = prio[idx] / total
        p_min = prio.min() / total
        out["w"] = (p_min / p).pow(beta).float()
        out["s"] = states[idx]
        out["s2"] = next_states[idx]
        out["a"] = actions[idx]
        out["r"] = rewards[idx]
        out["d"] = dones[idx]
        prio[idx] = (td.abs().double() + eps).pow(alpha)

    return step


def time_graph(step, steps_per_graph=1, iters=500, reps=5):
    """Median microseconds per step over `reps` runs of `iters` replays of a graph holding
    `steps_per_graph` steps."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(steps_per_graph):
            step()
    iters = max(1, iters // steps_per_graph)
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(iters):
            graph.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(1000.0 * a.elapsed_time(b) / (iters * steps_per_graph))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--capacity", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    ap.add_argument("--batch", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--dim", type=int, default=51)
    args = ap.parse_args()
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    print(f"{'capacity':>9} {'batch':>5} | {'step graph us':>13} {'step x16 us':>12}")
    for cap in args.capacity:
        for b in args.batch:
            step = make_step(cap, b, args.dim)
            us, us16 = time_graph(step), time_graph(step, steps_per_graph=16)
            print(f"{cap:>9} {b:>5} | {us:>13.2f} {us16:>12.2f}")
            print("JSON " + json.dumps({"impl": "torch", "capacity": cap, "batch": b, "step_graph_us": round(us, 3),
                                        "step_in_16_graph_us": round(us16, 3)}))


if __name__ == "__main__":
    main()
