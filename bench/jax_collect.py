"""JAX anchor of the GPU collector (issue 24 item 7): CartPole collection the PureJaxRL way
(Lu et al. 2022; gymnax's CartPole, Lange 2022): the environments, the acting network and the
replay write in one jitted program, vmapped over environment copies, lax.scan over vector steps.

Per vector step, for E copies:
  1. acting: the cartpole preset's network (4 -> 128 -> ReLU -> 128 -> ReLU, dueling heads V and A,
     Q = V + A - mean(A)) on the copies' observations, epsilon-greedy (epsilon 0.05) from
     jax.random draws;
  2. CartPole-v1's step in float32 (gymnax's arithmetic: Euler, tau 0.02, force +-10, termination at
     |x| > 2.4 or |theta| > 12 degrees, truncation at 500 steps), auto-reset uniform in [-0.05, 0.05];
  3. the E one-step transitions (s, a, r, s', done) written into a device ring buffer of 1e6 slots
     with dynamic_update_slice (uniform replay: no priorities, no sum tree, no n-step returns;
     the native collector does all three).
Timing: one jitted call runs --steps vector steps (lax.scan); the median of --reps calls after a
warm-up, block_until_ready, reported per vector step and as env steps per second.

Usage: python3 bench/jax_collect.py [--envs 16 256 4096 65536] [--steps 100] [--reps 5]
Prints a table and one line "JSON {...}" per size.
"""
import argparse
import json
import time

import jax
import jax.numpy as jnp

GRAVITY, MASSCART, MASSPOLE, LENGTH, FORCE_MAG, TAU = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
TOTAL_MASS, POLEMASS_LENGTH = MASSPOLE + MASSCART, MASSPOLE * LENGTH
THETA_LIMIT, X_LIMIT, MAX_STEPS = 12 * 2 * 3.141592653589793 / 360, 2.4, 500
EPSILON, CAPACITY = 0.05, 1_000_000


def init_params(key, sizes=(4, 128, 128)):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        key, k = jax.random.split(key)
        params.append((jax.random.uniform(k, (fan_in, fan_out), minval=-1, maxval=1) / jnp.sqrt(fan_in), jnp.zeros(fan_out)))
    key, kv, ka = jax.random.split(key, 3)
    head_v = (jax.random.uniform(kv, (sizes[-1], 1), minval=-1, maxval=1) / jnp.sqrt(sizes[-1]), jnp.zeros(1))
    head_a = (jax.random.uniform(ka, (sizes[-1], 2), minval=-1, maxval=1) / jnp.sqrt(sizes[-1]), jnp.zeros(2))
    return params, head_v, head_a


def q_values(net, obs):
    trunk, (wv, bv), (wa, ba) = net
    h = obs
    for w, b in trunk:
        h = jax.nn.relu(h @ w + b)
    v, a = h @ wv + bv, h @ wa + ba
    return v + a - a.mean(axis=-1, keepdims=True)


def cartpole_step(state, t, action):
    x, x_dot, theta, theta_dot = state[..., 0], state[..., 1], state[..., 2], state[..., 3]
    force = jnp.where(action == 1, FORCE_MAG, -FORCE_MAG)
    cos, sin = jnp.cos(theta), jnp.sin(theta)
    temp = (force + POLEMASS_LENGTH * theta_dot**2 * sin) / TOTAL_MASS
    thetaacc = (GRAVITY * sin - cos * temp) / (LENGTH * (4.0 / 3.0 - MASSPOLE * cos**2 / TOTAL_MASS))
    xacc = temp - POLEMASS_LENGTH * thetaacc * cos / TOTAL_MASS
    new = jnp.stack([x + TAU * x_dot, x_dot + TAU * xacc, theta + TAU * theta_dot, theta_dot + TAU * thetaacc], axis=-1)
    terminal = (jnp.abs(new[..., 0]) > X_LIMIT) | (jnp.abs(new[..., 2]) > THETA_LIMIT)
    t = t + 1
    truncated = ~terminal & (t >= MAX_STEPS)
    return new, t, terminal, truncated


def make_collect(envs, steps):
    def vector_step(carry, _):
        net, state, t, key, buf, cursor = carry
        key, k_explore, k_action, k_reset = jax.random.split(key, 4)
        obs = state
        greedy = jnp.argmax(q_values(net, obs), axis=-1)
        explore = jax.random.uniform(k_explore, (envs,)) < EPSILON
        action = jnp.where(explore, jax.random.randint(k_action, (envs,), 0, 2), greedy)
        nxt, t, terminal, truncated = cartpole_step(state, t, action)
        done = terminal | truncated
        reset = jax.random.uniform(k_reset, (envs, 4), minval=-0.05, maxval=0.05)
        state = jnp.where(done[:, None], reset, nxt)
        t = jnp.where(done, 0, t)
        states, actions, rewards, next_states, dones = buf
        idx = cursor % (CAPACITY - envs + 1)
        buf = (jax.lax.dynamic_update_slice(states, obs, (idx, 0)),
               jax.lax.dynamic_update_slice(actions, action.astype(jnp.int32), (idx,)),
               jax.lax.dynamic_update_slice(rewards, jnp.ones(envs, jnp.float32), (idx,)),
               jax.lax.dynamic_update_slice(next_states, nxt, (idx, 0)),
               jax.lax.dynamic_update_slice(dones, terminal.astype(jnp.uint8), (idx,)))
        return (net, state, t, key, buf, cursor + envs), None

    @jax.jit
    def collect(carry):
        carry, _ = jax.lax.scan(vector_step, carry, None, length=steps)
        return carry

    return collect


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", type=int, nargs="+", default=[16, 256, 4096, 65536])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    print(f"jax {jax.__version__}, device {jax.devices()[0].device_kind}")
    print(f"{'envs':>6} {'us/vstep':>10} {'env steps/s':>14}")
    for envs in args.envs:
        key = jax.random.PRNGKey(0)
        key, k_net, k_state = jax.random.split(key, 3)
        net = init_params(k_net)
        state = jax.random.uniform(k_state, (envs, 4), minval=-0.05, maxval=0.05)
        buf = (jnp.zeros((CAPACITY, 4), jnp.float32), jnp.zeros(CAPACITY, jnp.int32), jnp.zeros(CAPACITY, jnp.float32),
               jnp.zeros((CAPACITY, 4), jnp.float32), jnp.zeros(CAPACITY, jnp.uint8))
        carry = (net, state, jnp.zeros(envs, jnp.int32), key, buf, jnp.int32(0))
        collect = make_collect(envs, args.steps)
        carry = jax.block_until_ready(collect(carry))  # compile + warm-up
        times = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            carry = jax.block_until_ready(collect(carry))
            times.append(time.perf_counter() - t0)
        us = 1e6 * sorted(times)[len(times) // 2] / args.steps
        print(f"{envs:>6} {us:>10.2f} {1e6 * envs / us:>14.4g}")
        print("JSON " + json.dumps({"bench": "collect", "path": "jax", "envs": envs, "us_per_vector_step": us,
                                    "env_steps_per_s": 1e6 * envs / us}))


if __name__ == "__main__":
    main()
