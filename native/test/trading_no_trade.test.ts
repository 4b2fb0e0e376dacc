// The options that let the trading agent not trade (issue 25 item 4) and the moving-average
// baseline's tie rule (item 2), each checked against a walk worked by hand from the rules in
// native/src/env/trading_booking.h, trading_walk.h, trading_env.h and trading_baselines.h.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEnv, type EnvOptions } from '../env.ts';
import { barsFromCloses } from './trading_reference.ts';

type TradingOptions = Extract<EnvOptions, { kind: 'trading' }>;

// 60 one-minute bars, validation [30, 60), lags 1: decision bars 50..58, the walk's last bar 59.
const SPEC: TradingOptions = { kind: 'trading', num_envs: 1, lags: 1, n_actions: 3, max_position: 1, cost_bps: 10, validation_fraction: 0.5, reward_scale: 1 };
const POSITION = 7; // observation index of position / max_position with lags 1

/** Rewards are f32 (~1e-9 of their size apart from the f64 booking); metrics are f64. */
const F32 = 2e-9;
const near = (actual: number | undefined, expected: number, what: string, tol = 1e-12): void =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tol * (1 + Math.abs(expected)), `${what}: got ${actual}, expected ${expected}`);

/** Steps an evaluation env to the end of its walk with `action(k)`; returns the rewards and the position seen after each step. */
function walk(options: TradingOptions, closes: number[], action: (k: number) => number) {
  const env = createEnv(options, barsFromCloses(closes), 'validation');
  env.reset();
  const rewards: number[] = [], positions: number[] = [];
  for (let k = 0; ; k++) {
    const out = env.step(Int32Array.of(action(k)));
    rewards.push(out.rewards[0]!);
    positions.push(out.finalObs[POSITION]!);
    if (out.truncated[0]) break;
  }
  return { env, rewards, positions, metrics: env.episodeMetrics() };
}

test('a decision interval of 3 acts at every third decision bar and holds its units in between, without trading', () => {
  // Closes 100 up to bar 50, 102, 101, 104 at bars 51-53, 104 to bar 56, 100 at 57-58, 110 at 59.
  // Decisions at bars 50, 53 and 56 (the last: it holds to bar 59 and sells there), always long 1:
  //   50 -> 53: buy 1 (10 bp): r1 = 1.04 - 1 - 0.001 = 0.039; the units are worth 1.04 of 1.039: w = 1.04 / 1.039
  //   53 -> 56: flat prices; rebalance |1 - w|: r2 = -0.001 (w - 1); w2 = 1 / (1 + r2)
  //   56 -> 59: rebalance |1 - w2|, +10%, sell 1.1 (10 bp): r3 = 0.1 - 0.001 |1 - w2| - 0.0011
  const closes = Array.from({ length: 60 }, (_, t) => (t <= 50 ? 100 : t === 51 ? 102 : t === 52 ? 101 : t <= 56 ? 104 : t <= 58 ? 100 : 110));
  const { rewards, metrics: m } = walk({ ...SPEC, decision_interval: 3 }, closes, () => 2);
  const w = 1.04 / 1.039, r2 = -0.001 * (w - 1), w2 = 1 / (1 + r2);
  const r3 = (110 / 104 - 1) - 0.001 * Math.abs(1 - w2) - 0.001 * (110 / 104);
  assert.equal(rewards.length, 3, 'three decisions in nine decision bars');
  [0.039, r2, r3].forEach((r, k) => near(rewards[k], r, `reward of decision ${k}`, F32));
  assert.equal(m.bars, 9, 'every bar of the walk is marked to market, bars 51..59');
  near(m.return, 1.039 * (1 + r2) * (1 + r3) - 1, 'return');
  near(m.turnover, 1 + (w - 1) + Math.abs(1 - w2) + (110 / 104) / (1 + (110 / 104 - 1) - 0.001 * Math.abs(1 - w2)), 'turnover');
  // The peak is 1.039 at bar 53; at bar 57 the long has lost 4/104 of equity 1.039 (1 + r2).
  near(m.max_drawdown, 1 - (1 + r2) * (1 - 0.001 * Math.abs(1 - w2) - 4 / 104), 'drawdown at bar 57');
  // The buy-and-hold baseline walks the same three decisions.
  near(m.buy_and_hold_return, m.return!, 'always long is buy-and-hold on the same plan');
  // Every bar (interval 1): nine decisions, and holding long pays the rebalancing at each.
  assert.equal(walk(SPEC, closes, () => 2).rewards.length, 9);
});

test('the change penalty lowers the training reward by penalty x units traded; evaluation pays only the cost', () => {
  // Flat prices at 100 over 400 bars: training decision bars 20..198. Long 1 at 10 bp, then hold it:
  //   step 0: trade 1 -> reward -0.001, penalty 20 bp x 1
  //   step 1: the units are worth 1 of equity 0.999: rebalance 0.001 / 0.999 -> penalty 20 bp x 0.001 / 0.999
  const closes = Array.from({ length: 400 }, () => 100);
  const spec = { ...SPEC, validation_fraction: 0.5, episode_length: 64, seed: 4 };
  const rewards = (penalty: number, role: 'train' | 'validation') => {
    const env = createEnv({ ...spec, change_penalty_bps: penalty }, barsFromCloses(closes), role);
    env.reset();
    return [0, 1].map(() => {
      const out = env.step(Int32Array.of(2));
      assert.equal(out.truncated[0], 0);
      return out.rewards[0]!;
    });
  };
  const plain = rewards(0, 'train'), penalised = rewards(20, 'train');
  near(plain[0], -0.001, 'cost of the entry', F32);
  near(plain[0]! - penalised[0]!, 0.002, 'penalty on the entry', F32);
  near(plain[1]! - penalised[1]!, 0.002 * (0.001 / 0.999), 'penalty on the rebalancing', F32);
  assert.deepEqual(rewards(20, 'validation'), rewards(0, 'validation'), 'the evaluation walk charges the cost only');
});

test('the step action space: hold trades nothing, up and down move one level, flat sells, and the grid clamps', () => {
  // n_actions 5, max_position 1: levels -1, -0.5, 0, 0.5, 1. Closes 100 to bar 50, 110 at bars
  // 51-52, 121 from bar 53. Actions: up, up, hold, hold, down, flat, down, down, down.
  //   50: up to 0.5 (cost 0.0005); +10%: r0 = 0.05 - 0.0005 = 0.0495; w0 = 0.55 / 1.0495
  //   51: up to 1: trade 1 - w0; flat prices: r1 = -0.001 (1 - w0); w1 = 1 / (1 + r1)
  //   52: hold: no trade, the units ride +10%: r2 = 0.1 w1; w2 = 1.1 w1 / (1 + r2)
  //   53: hold at flat prices: r3 = 0, w3 = w2
  //   54: down to 0.5: r4 = -0.001 |0.5 - w2|
  const closes = Array.from({ length: 60 }, (_, t) => (t <= 50 ? 100 : t <= 52 ? 110 : 121));
  const actions = [1, 1, 0, 0, 2, 3, 2, 2, 2];
  const { env, rewards, positions, metrics: m } = walk({ ...SPEC, n_actions: 5, action_space: 'step' }, closes, (k) => actions[k]!);
  assert.equal(env.numActions, 4);
  const w0 = 0.55 / 1.0495, r1 = -0.001 * (1 - w0), w1 = 1 / (1 + r1), r2 = 0.1 * w1, w2 = (1.1 * w1) / (1 + r2);
  [0.0495, r1, r2, 0, -0.001 * Math.abs(0.5 - w2)].forEach((r, k) => near(rewards[k], r, `reward of step ${k}`, F32));
  assert.deepEqual(positions.slice(0, 8), [0.5, 1, 1, 1, 0.5, 0, -0.5, -1], 'the decided position seen after each step');
  assert.equal(m.trade_fraction, 6 / 9, 'two ups, a down, flat and two downs changed the position; the holds and the clamped down did not');
  assert.throws(() => env.step(Int32Array.of(4)), /action of copy 0 must be in \[0, 4\), got 4/);
});

test('the moving-average baseline decides exact ties by its documented rule: a tie is flat', () => {
  // Constant closes of 1.00015: the 20- and 60-bar means are equal, yet summed in floating point
  // the 20-bar mean comes out 8.9e-16 above the 60-bar one; the rule calls that a tie (within 1e-9
  // of the slow mean) and stays flat: no trade, no cost.
  const flat = Array.from({ length: 100 }, () => 1.00015);
  const tie = walk({ ...SPEC, cost_bps: 1, validation_fraction: 0.5 }, flat, () => 1).metrics;
  assert.deepEqual([tie.ma_crossover_turnover, tie.ma_crossover_costs, tie.ma_crossover_return], [0, 0, 0]);
  // One tick up (0.00005) at bar 80 lifts the 20-bar mean above the 60-bar one by ~1e-6 of it, far
  // outside the band: the rule is long from bar 80 on, exactly like an agent flat before bar 80 and
  // long from it (validation [50, 100), lags 1: decisions 70..98, bar 80 is decision 10).
  const tick = flat.map((c, t) => (t >= 80 ? 1.0002 : c));
  const m = walk({ ...SPEC, cost_bps: 1, validation_fraction: 0.5 }, tick, (k) => (k >= 10 ? 2 : 1)).metrics;
  for (const f of ['return', 'turnover', 'costs', 'sharpe', 'max_drawdown']) assert.equal(m[`ma_crossover_${f}`], m[f], `MA ${f} = the agent's`);
  assert.ok(m.turnover! > 2, 'it bought and sold');
});
