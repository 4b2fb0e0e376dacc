"""PyTorch baseline of the full DQN training step, the same workload as the native GPU learner:

  1. proportional PER sample of B indices from a 1e6-slot buffer, as bench/torch_per.py does it
     (flat f64 priority array p^alpha, cumsum + searchsorted stratified sampling, gather of
     s, a, r, s', discount, IS weights w = (p_min / p)^beta, alpha 0.6, beta 0.4);
  2. dueling MLP 51 -> 256 -> ReLU -> 256 -> ReLU, heads V 256 -> 1 and A 256 -> 45,
     Q = V + A - mean(A); online net and a target copy;
  3. one online forward of [s; s'] (2B rows) and a target forward of s' (no grad);
  4. Double DQN target y = r + discount * Q_target(s', argmax Q_online(s')), td = y - Q(s, a),
     loss = mean(w * huber(td, delta 1));
  5. backward, global grad-norm clip at 10, Adam (lr 2.5e-4, eps 1e-8; fused where it works,
     else foreach), Polyak target update tau 0.005 (torch._foreach_lerp_);
  6. priority update: scatter (|td| + 1e-6)^alpha at the sampled indices.

Modes, each timed with CUDA events (median of --reps runs of --iters steps, after a warm-up):
  eager          the Python step function called in a loop;
  graph          the whole step (sampling to priority update, optimizer included) captured in one
                 torch.cuda.CUDAGraph, one step per replay;
  graph_x16      16 steps captured in one graph, reported per step (as torch_per.py's x16 column);
  compile        the net/loss part through torch.compile(mode="max-autotune-no-cudagraphs")
                 (inductor Triton kernels, autotuned GEMMs, compiled backward), the rest eager,
                 and the whole step then captured in one CUDAGraph, one step per replay;
  compile_x16    the same, 16 steps per graph;
  compile_trees  the common recipe: the whole step function, optimizer.step() included, through
                 torch.compile(mode="max-autotune"), which replays inductor's own CUDA graph trees;
                 dynamo breaks the step at zero_grad, loss.backward() and around optimizer.step()
                 (its own graph; foreach Adam, as dynamo does not trace fused Adam), and the Python
                 between the pieces runs every step.
Precisions: tf32 (TF32 matmuls), fp32 (full f32 matmuls), bf16 (autocast bf16 around the forward
passes and loss; weights, optimizer and priorities stay f32/f64).

Usage: python3 bench/torch_dqn_step.py [--batch 256 1024] [--precision tf32 bf16 fp32]
           [--iters 300] [--reps 3] [--modes eager graph ...] [--no-compile | --compile-all]
           [--verbose-compile]
By default the compile modes run for the first batch and first precision only (256, tf32):
inductor's max-autotune compile took about 2 minutes on an H200 with empty caches, and the whole
default run about 4 (1.5 with inductor's on-disk caches warm); --compile-all runs them for every
batch and precision. A compile failure prints its first line and the other modes go on (a compile
warm-up longer than --compile-timeout counts as one). Prints one sanity line per eager run (loss
finite after 200 steps), one line "JSON {...}" per (batch, precision, mode), and a table.
Inductor's autotune tables and per-choice autotune errors are hidden unless --verbose-compile.
"""
import argparse
import copy
import json
import logging
import math
import signal
import statistics
import time
import types
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

ALPHA, BETA, PRIO_EPS = 0.6, 0.4, 1e-6
GAMMA, N_STEP, TERMINAL_FRACTION = 0.99, 3, 0.01
HIDDEN = 256
LR, ADAM_EPS, GRAD_CLIP, TAU, HUBER_DELTA = 2.5e-4, 1e-8, 10.0, 0.005, 1.0
SANITY_STEPS = 200
ALL_MODES = ["eager", "graph", "graph_x16", "compile", "compile_x16", "compile_trees"]
COMPILE_MODES = {"compile", "compile_x16", "compile_trees"}


def make_buffer(capacity, dim, n_actions, dev="cuda"):
    """Replay storage filled with random transitions: f32 states / next states, int32 actions, f32
    rewards, f32 discounts (gamma^n, 0 at terminal), f64 priorities p^alpha (as torch_per.py)."""
    torch.manual_seed(1)
    discounts = torch.full((capacity,), GAMMA**N_STEP, device=dev)
    discounts[torch.rand(capacity, device=dev) < TERMINAL_FRACTION] = 0.0
    return types.SimpleNamespace(
        capacity=capacity,
        n_actions=n_actions,
        states=torch.randn(capacity, dim, device=dev),
        next_states=torch.randn(capacity, dim, device=dev),
        actions=torch.randint(0, n_actions, (capacity,), device=dev, dtype=torch.int32),
        rewards=torch.randn(capacity, device=dev),
        discounts=discounts,
        prio=torch.rand(capacity, device=dev, dtype=torch.float64) + 0.1,
    )


def per_sample(buf, batch, offsets):
    """Stratified proportional sample and IS weights, the lines of torch_per.py's step."""
    cdf = torch.cumsum(buf.prio, 0)
    total = cdf[-1]
    u = (offsets + torch.rand(batch, device=offsets.device, dtype=torch.float64)) * (total / batch)
    idx = torch.searchsorted(cdf, u, right=True).clamp_(max=buf.capacity - 1)
    p = buf.prio[idx] / total
    p_min = buf.prio.min() / total
    w = (p_min / p).pow(BETA).float()
    return idx, w


class DuelingMLP(nn.Module):
    def __init__(self, dim, n_actions, hidden=HIDDEN):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.value = nn.Linear(hidden, 1)
        self.advantage = nn.Linear(hidden, n_actions)

    def forward(self, x):
        h = self.trunk(x)
        a = self.advantage(h)
        return self.value(h) + a - a.mean(1, keepdim=True)


def make_adam(params, capturable, fused):
    """Adam, fused if asked and this build takes it, else foreach; returns (optimizer, which)."""
    if fused:
        try:
            return torch.optim.Adam(params, lr=LR, eps=ADAM_EPS, fused=True, capturable=capturable), "fused"
        except (RuntimeError, TypeError, ValueError):
            pass
    return torch.optim.Adam(params, lr=LR, eps=ADAM_EPS, foreach=True, capturable=capturable), "foreach"


def make_nets(dim, n_actions, capturable, fused=True, dev="cuda"):
    """Online net, its target copy (no grad) and the online net's Adam."""
    torch.manual_seed(0)
    online = DuelingMLP(dim, n_actions).to(dev)
    target = copy.deepcopy(online).requires_grad_(False)
    opt, opt_kind = make_adam(list(online.parameters()), capturable, fused)
    return online, target, opt, opt_kind


def make_step(buf, batch, precision, mode):
    """The training step for one mode: a closure with no arguments that runs steps 1-6 and returns
    the loss tensor. Graph modes get a capturable Adam; the compile modes wrap the net/loss part
    (compile, compile_x16) or the whole step (compile_trees) in torch.compile."""
    # dynamo does not trace fused Adam (it runs eagerly, outside the graphs): compile_trees takes
    # foreach Adam, which torch.compile turns into its own graph (the compiled-optimizer recipe).
    online, target, opt, opt_kind = make_nets(buf.states.shape[1], buf.n_actions, capturable=mode != "eager",
                                              fused=mode != "compile_trees")
    online_params, target_params = list(online.parameters()), list(target.parameters())
    offsets = torch.arange(batch, device=buf.prio.device, dtype=torch.float64)
    bf16 = precision == "bf16"

    def loss_fn(s, a, r, s2, disc, w):
        # The weight-cast cache of autocast must be off for CUDA graph capture.
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16, cache_enabled=False):
            q_all = online(torch.cat([s, s2]))  # online net on s and s' in one forward
            q, q2_online = q_all[:batch], q_all[batch:]
            with torch.no_grad():
                q2_target = target(s2)
                a_star = q2_online.argmax(1, keepdim=True)  # Double DQN: online picks, target rates
                y = r + disc * q2_target.gather(1, a_star).squeeze(1).float()
            q_sa = q.gather(1, a.unsqueeze(1)).squeeze(1).float()
            loss = (w * F.huber_loss(q_sa, y, reduction="none", delta=HUBER_DELTA)).mean()
        return loss, (y - q_sa).detach()

    if mode in ("compile", "compile_x16"):
        loss_fn = torch.compile(loss_fn, mode="max-autotune-no-cudagraphs", dynamic=False)

    def step():
        opt.zero_grad(set_to_none=True)  # the backward allocates the grads (in the graph's pool when captured)
        idx, w = per_sample(buf, batch, offsets)
        s, s2 = buf.states[idx], buf.next_states[idx]
        a = buf.actions[idx].long()
        r, disc = buf.rewards[idx], buf.discounts[idx]
        loss, td = loss_fn(s, a, r, s2, disc, w)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(online_params, GRAD_CLIP, foreach=True)
        opt.step()
        with torch.no_grad():
            torch._foreach_lerp_(target_params, online_params, TAU)  # target += tau (online - target)
            buf.prio[idx] = (td.abs().double() + PRIO_EPS).pow(ALPHA)
        return loss.detach()

    if mode == "compile_trees":
        for t in vars(buf).values():  # buffer tensors mutated in place: cudagraph-tree static inputs
            if isinstance(t, torch.Tensor):
                torch._dynamo.mark_static_address(t)
        compiled = torch.compile(step, mode="max-autotune", dynamic=False)

        def step_trees():
            torch.compiler.cudagraph_mark_step_begin()
            return compiled().clone()  # the tree's outputs are overwritten by the next replay

        return step_trees, opt_kind
    return step, opt_kind


def set_precision(precision):
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.set_float32_matmul_precision("high" if tf32 else "highest")


def capture(step, steps_per_graph, warmup=3):
    """Capture `steps_per_graph` steps in one CUDA graph after a warm-up on a side stream (as the
    PyTorch docs ask); returns the graph and the last captured step's (static) loss tensor."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmup):
            step()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(steps_per_graph):
            loss = step()
    return graph, loss


def time_mode(run, steps_per_call, iters, reps, warmup):
    """Median microseconds per step of `run` (which does `steps_per_call` steps) over `reps` runs of
    about `iters` steps each, timed with CUDA events after `warmup` calls."""
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    calls = max(1, math.ceil(iters / steps_per_call))
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(calls):
            run()
        b.record()
        torch.cuda.synchronize()
        times.append(1000.0 * a.elapsed_time(b) / (calls * steps_per_call))
    return statistics.median(times)


def quiet_inductor():
    """Hide inductor's autotune tables and its logged per-choice autotune failures (Triton configs
    that need more shared memory than the chip has, say); a compile that fails still raises."""
    import torch._inductor.config as inductor_config

    if hasattr(inductor_config, "autotune_num_choices_displayed"):
        inductor_config.autotune_num_choices_displayed = 0
    if hasattr(inductor_config, "max_autotune_report_choices_stats"):
        inductor_config.max_autotune_report_choices_stats = False
    logging.getLogger("torch._inductor.select_algorithm").setLevel(logging.CRITICAL)
    warnings.filterwarnings("ignore", message="TypedStorage is deprecated")


class CompileTimeout(Exception):
    pass


def with_timeout(seconds, fn):
    """Run fn(), raising CompileTimeout in the main thread after `seconds` (0: no limit)."""
    if seconds <= 0:
        return fn()

    def on_alarm(signum, frame):
        raise CompileTimeout(f"compile warm-up took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        return fn()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_mode(buf, batch, precision, mode, args):
    """Build, warm up, (capture and) time one mode; returns (us per step, optimizer kind)."""
    step, opt_kind = make_step(buf, batch, precision, mode)
    if mode == "eager":
        for _ in range(SANITY_STEPS):
            loss = step()
        torch.cuda.synchronize()
        assert torch.isfinite(loss), f"eager loss not finite after {SANITY_STEPS} steps: {loss.item()}"
        print(f"sanity: batch {batch} {precision} eager loss after {SANITY_STEPS} steps = {loss.item():.6f} (finite)")
        return time_mode(step, 1, args.iters, args.reps, args.warmup), opt_kind
    if mode in COMPILE_MODES:
        t0 = time.perf_counter()

        def compile_warmup():
            for _ in range(args.compile_warmup):
                step()
            torch.cuda.synchronize()

        with_timeout(args.compile_timeout, compile_warmup)
        print(f"  {mode}: batch {batch} {precision} compiled and warmed up in {time.perf_counter() - t0:.1f} s")
    if mode == "compile_trees":
        us = time_mode(step, 1, args.iters, args.reps, args.warmup)
        loss = step()
    else:
        steps_per_graph = 16 if mode.endswith("_x16") else 1
        graph, loss = capture(step, steps_per_graph)
        us = time_mode(graph.replay, steps_per_graph, args.iters, args.reps, args.warmup)
    torch.cuda.synchronize()
    assert torch.isfinite(loss), f"{mode} loss not finite: {loss.item()}"
    return us, opt_kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--precision", nargs="+", default=["tf32", "bf16", "fp32"], choices=["tf32", "bf16", "fp32"])
    ap.add_argument("--modes", nargs="+", default=ALL_MODES, choices=ALL_MODES)
    ap.add_argument("--capacity", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=51)
    ap.add_argument("--actions", type=int, default=45)
    ap.add_argument("--iters", type=int, default=300, help="timed steps per repetition")
    ap.add_argument("--reps", type=int, default=3, help="repetitions; the median is reported")
    ap.add_argument("--warmup", type=int, default=20, help="warm-up calls before timing")
    ap.add_argument("--compile-warmup", type=int, default=50, help="steps run after compiling, before capture")
    ap.add_argument("--compile-timeout", type=int, default=300, help="seconds allowed per compile warm-up (0: none)")
    ap.add_argument("--no-compile", action="store_true", help="skip the compile modes")
    ap.add_argument("--compile-all", action="store_true", help="compile modes for every batch and precision")
    ap.add_argument("--verbose-compile", action="store_true", help="show inductor's autotune output")
    args = ap.parse_args()

    device = torch.cuda.get_device_name()
    print(f"torch {torch.__version__} on {device}; capacity {args.capacity}, state_dim {args.dim}, "
          f"{args.actions} actions, hidden {HIDDEN}x2 dueling")
    if not args.no_compile:
        torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
        if not args.verbose_compile:
            quiet_inductor()
    buf = make_buffer(args.capacity, args.dim, args.actions)
    rows = []
    for bi, batch in enumerate(args.batch):
        for pi, precision in enumerate(args.precision):
            set_precision(precision)
            compiling = not args.no_compile and (args.compile_all or (bi, pi) == (0, 0))
            if compiling:
                torch._dynamo.reset()  # precision flags and shapes are read at compile time
            for mode in args.modes:
                if mode in COMPILE_MODES and not compiling:
                    continue
                try:
                    us, opt_kind = run_mode(buf, batch, precision, mode, args)
                except Exception as e:  # noqa: BLE001 -- report and go on with the other modes
                    if mode not in COMPILE_MODES:
                        raise
                    first = (str(e).strip().splitlines() or [""])[0]
                    print(f"  {mode}: batch {batch} {precision} failed: {type(e).__name__}: {first}")
                    try:
                        torch.cuda.synchronize()
                    except Exception as e2:  # noqa: BLE001 -- e.g. a capture the failure left broken
                        print(f"  (synchronize after the failure: {type(e2).__name__}: {str(e2)[:200]})")
                    continue
                rec = {"bench": "torch_dqn_step", "batch": batch, "precision": precision, "mode": mode,
                       "us_per_step": round(us, 3), "steps_per_s": round(1e6 / us, 1), "optimizer": opt_kind,
                       "torch": torch.__version__, "device": device}
                print("JSON " + json.dumps(rec), flush=True)
                rows.append(rec)

    print()
    print(f"{'batch':>5} {'precision':>9} {'mode':>14} | {'us/step':>9} {'steps/s':>9} {'adam':>7}")
    for r in rows:
        print(f"{r['batch']:>5} {r['precision']:>9} {r['mode']:>14} | {r['us_per_step']:>9.2f} "
              f"{r['steps_per_s']:>9.0f} {r['optimizer']:>7}")


if __name__ == "__main__":
    main()
