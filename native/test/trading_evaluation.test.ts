// The trading evaluation a quant would trust (issue 17): every figure of the native evaluation
// walk checked against a float64 cash-and-units portfolio computed in TypeScript straight from
// the CSV text (trading_reference.ts), on each bundled dataset and on series with known moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { createEnv, type NativeEnv } from '../env.ts';
import { createTrainer, type MarketArrays } from '../trainer.ts';
import { barsFromCloses, maCrossover, Reference, referenceWalk, refParams, rng, summarizeEquity, type WalkResult } from './trading_reference.ts';

/** The bars of a bundled CSV file, parsed here without the product's loader. */
function readCsv(path: string): MarketArrays {
  const rows = readFileSync(path, 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
  const col = (i: number) => Float64Array.from(rows, (r) => (i === 0 ? Date.parse(r[0]!.length === 10 ? `${r[0]}T00:00:00Z` : r[0]!) / 1000 : Number(r[i])));
  return { timestamps: col(0), open: col(1), high: col(2), low: col(3), close: col(4), volume: col(5) };
}

const near = (actual: number | undefined, expected: number, tol: number, what: string): void =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tol * (1 + Math.abs(expected)), `${what}: got ${actual}, expected ${expected}`);

/** Steps the evaluation env through one episode with `action(k)`; returns the unscaled step rewards and the metrics. */
function walkEnv(env: NativeEnv, action: (k: number) => number, rewardScale: number): { rewards: number[]; metrics: Record<string, number> } {
  env.reset();
  const rewards: number[] = [];
  for (let k = 0; ; k++) {
    const out = env.step(Int32Array.of(action(k)));
    rewards.push(out.rewards[0]! / rewardScale);
    if (out.truncated[0]) break;
  }
  return { rewards, metrics: env.episodeMetrics() };
}

/** Checks the metrics under `prefix` against a reference walk. */
function expectWalk(m: Record<string, number>, prefix: string, w: WalkResult, barsPerYear: number, what: string): void {
  const s = summarizeEquity(w.equity, barsPerYear);
  near(m[`${prefix}return`], s.total, 1e-9, `${what} ${prefix}return`);
  near(m[`${prefix}return_simple`], w.stepReturns.reduce((a, b) => a + b, 0), 1e-9, `${what} ${prefix}return_simple`);
  near(m[`${prefix}sharpe`], s.sharpe, 1e-7, `${what} ${prefix}sharpe`);
  near(m[`${prefix}sharpe_se`], s.sharpeSe, 1e-7, `${what} ${prefix}sharpe_se`);
  near(m[`${prefix}max_drawdown`], s.maxDrawdown, 1e-9, `${what} ${prefix}max_drawdown`);
  assert.equal(m[`${prefix}ruined`], w.ruined ? 1 : 0, `${what} ${prefix}ruined`);
  near(m[`${prefix}turnover`], w.turnover, 1e-9, `${what} ${prefix}turnover`);
  near(m[`${prefix}costs`], w.costs, 1e-9, `${what} ${prefix}costs`);
}

/**
 * A bundled trading preset's env, deciding at every decision bar (decision_interval 1) with
 * target positions (action_space 'target': action k holds position -max + 2 max k / (A - 1)), as
 * the float64 reference walks them; the decision interval and the step action space have their
 * own tests (trading_no_trade.test.ts).
 */
function presetWalkingEveryBar(name: string) {
  const config = parseRunConfig(JSON.parse(readFileSync(resolve('resources/presets', `${name}.json`), 'utf8')));
  if (config.env.kind !== 'trading') throw new Error('a trading preset');
  return { ...config.env, decision_interval: 1, action_space: 'target' as const };
}

for (const presetName of ['trading-6e', 'trading-spy']) {
  test(`${presetName}: always-flat, always-long, always-short and a fixed random policy reproduce a float64 portfolio from the CSV, beside its baselines, on the validation span under both gap policies and on the test span`, () => {
    const e = presetWalkingEveryBar(presetName);
    const bars = readCsv(resolve(e.data));
    const ref = new Reference(bars, refParams(e));
    for (const [role, gapPolicy] of [['validation', 'hold'], ['validation', 'flat'], ['test', 'hold']] as const) {
      const walkLength = ref.decisionBars(role).length;
      const bpy = ref.barsPerYearOf(role);
      const u = rng(17);
      const random = Array.from({ length: walkLength }, () => Math.floor(u() * e.n_actions));
      const policies: [string, (k: number) => number][] = [
        ['flat', () => (e.n_actions - 1) / 2], ['long', () => e.n_actions - 1], ['short', () => 0], ['random', (k) => random[k]!],
      ];
      const env = createEnv({ ...e, num_envs: 1, gap_policy: gapPolicy }, bars, role);
      const walk = (position: (t: number, k: number) => number) => referenceWalk(ref, position, { gapPolicy, role });
      const hold = walk(() => e.max_position);
      const crossover = walk(maCrossover(bars.close, e.max_position));
      for (const [name, action] of policies) {
        const what = `${presetName} ${role} ${gapPolicy} ${name}`;
        const { rewards, metrics: m } = walkEnv(env, action, e.reward_scale);
        const w = walk((_, k) => ref.position(action(k)));
        assert.equal(rewards.length, walkLength, `${what}: one step per decision bar of the span`);
        rewards.forEach((r, k) => near(r, w.stepReturns[k]!, 1e-6, `${what} reward of step ${k}`));
        expectWalk(m, '', w, bpy, what);
        near(m.trade_fraction, w.changes / walkLength, 1e-12, `${what} trade_fraction`);
        assert.equal(m.bars, w.equity.length - 1, `${what}: one return per bar`);
        near(m.bars_per_year, bpy, 1e-12, `${what} bars_per_year of the span`);
        assert.deepEqual([m.span_begin_bar, m.span_end_bar], [ref.spans[role].begin, ref.spans[role].end], `${what}: the span`);
        // Compounded and simple returns differ as their formulas say.
        near(m.return, w.stepReturns.reduce((eq, r) => eq * (1 + r), 1) - 1, 1e-9, `${what}: return = prod(1 + step) - 1`);
        expectWalk(m, 'buy_and_hold_', hold, bpy, what);
        expectWalk(m, 'ma_crossover_', crossover, bpy, what);
        expectWalk(m, 'flat_', walk(() => 0), bpy, what);
        if (name === 'long') for (const k of ['return', 'return_simple', 'sharpe', 'sharpe_se', 'max_drawdown', 'turnover', 'costs']) assert.equal(m[k], m[`buy_and_hold_${k}`], `${what}: always-long is buy-and-hold exactly (${k})`);
        if (name === 'flat') assert.deepEqual([m.return, m.return_simple, m.sharpe, m.max_drawdown, m.trade_fraction, m.turnover, m.costs], [0, 0, 0, 0, 0, 0, 0]);
      }
    }
  });
}

test('on daily SPY the compounded buy-and-hold return is what an investor got, not the fixed-notional sum', () => {
  // Fully invested at 1 bp a trade from the validation walk's first decision bar t0 to the sale at
  // the bar after its last, T: the closes' ratio less the entry and the exit (the rebalancing of
  // the cost's drift costs ~1e-8 a day, far inside the tolerance).
  const bars = readCsv(resolve('resources/data/spy_1d_1999-2020.csv'));
  const env = createEnv({ kind: 'trading', num_envs: 1, n_actions: 9, cost_bps: 1, reward_scale: 1 }, bars, true);
  const { metrics: m } = walkEnv(env, () => 8, 1);
  const ref = new Reference(bars, { lags: 7, nActions: 9, maxPosition: 1, costBps: 1, validationFraction: 0.2, maxGapBars: 5 });
  const walk = ref.decisionBars(true);
  const t0 = walk[0]!, T = walk.at(-1)! + 1;
  near(m.return, (1 - 1e-4) ** 2 * (bars.close[T]! / bars.close[t0]!) - 1, 1e-5, 'SPY validation buy-and-hold');
  assert.ok(m.return! > 0.5 && m.return_simple! < m.return! - 0.05, `compounded ${m.return} vs summed ${m.return_simple}`);
  let peak = 0, dd = 0;
  for (let t = t0; t <= T; t++) { peak = Math.max(peak, bars.close[t]!); dd = Math.max(dd, 1 - bars.close[t]! / peak); }
  near(m.max_drawdown, dd, 1e-4, 'the drawdown of the closes');
});

test('a known gap move is booked exactly: held across the gap (hold) or closed with its cost before it and reopened after (flat)', () => {
  // 140 bars, close 100 up to bar 99 and 110 from bar 100 (the first bar after the gap);
  // validation bars 70..139; decision bars 90..98 (after the span's own 20-bar warm-up) and, after
  // the gap's warm-up, 120..138. Always long 1 at 10 bp: the entry costs 0.001, holding over flat
  // prices rebalances the cost's drift (w = 1 / (1 - 0.001) after the entry), the gap step earns
  // 10% (hold) or sells at bar 99 and rebuys at bar 120 (flat), and the walk sells at bar 139.
  const bars = barsFromCloses(Array.from({ length: 140 }, (_, t) => (t < 100 ? 100 : 110)), 99);
  const spec = { kind: 'trading' as const, num_envs: 1, lags: 1, n_actions: 3, cost_bps: 10, validation_fraction: 0.5, reward_scale: 1 };
  const obsPosition = 7; // index of position / max_position with lags = 1
  for (const gap of ['hold', 'flat'] as const) {
    const env = createEnv({ ...spec, gap_policy: gap }, bars, true);
    env.reset();
    const rewards: number[] = [], positions: number[] = [];
    for (;;) {
      const out = env.step(Int32Array.of(2)); // always long 1 x equity
      rewards.push(out.rewards[0]!);
      positions.push(out.finalObs[obsPosition]!);
      if (out.truncated[0]) break;
    }
    assert.equal(rewards.length, 9 + 19);
    const gapStep = 8; // the step from bar 98 to bar 120
    // By hand: r = 1 x (price ratio - 1) - 0.001 |1 - w|, w' = ratio / (1 + r), and a sale costs 0.001 x ratio.
    const expected: number[] = [];
    let w = 0;
    for (let k = 0; k < rewards.length; k++) {
      const ratio = k === gapStep && gap === 'hold' ? 1.1 : 1; // flat: sold at bar 99, before the move
      let r = ratio - 1 - 0.001 * Math.abs(1 - w);
      if (k === rewards.length - 1 || (gap === 'flat' && k === gapStep)) r -= 0.001 * ratio;
      expected.push(r);
      w = gap === 'flat' && k === gapStep ? 0 : ratio / (1 + r);
    }
    rewards.forEach((r, k) => near(r, expected[k]!, 1e-7, `${gap}: reward of step ${k}`));
    assert.equal(positions[gapStep], gap === 'hold' ? 1 : 0, `${gap}: the position seen after the gap`);
    const m = env.episodeMetrics();
    assert.equal(m.bars, 139 - 90);
    near(m.return, expected.reduce((e, r) => e * (1 + r), 1) - 1, 1e-9, `${gap}: compounded return`);
    near(m.return, gap === 'hold' ? 0.999 * 1.1 * 0.999 - 1 : 0.999 ** 4 - 1, 1e-5, `${gap}: the entry, the move and the exit`);
    near(m.return_simple, expected.reduce((a, r) => a + r, 0), 1e-9, `${gap}: simple return`);
    near(m.buy_and_hold_return, m.return!, 0, `${gap}: buy-and-hold is the same walk`);
  }

  // Training episodes cross the gap too: 200 bars, training decision bars 20..98 and 120..158.
  const long = barsFromCloses(Array.from({ length: 200 }, (_, t) => (t < 100 ? 100 : 110)), 99);
  for (const gap of ['hold', 'flat'] as const) {
    const env = createEnv({ ...spec, validation_fraction: 0.2, episode_length: 1000, gap_policy: gap, seed: 3 }, long, false);
    env.reset();
    let crossed = 0, held = 0;
    for (let s = 0; s < 2000 && crossed < 3; s++) {
      const out = env.step(Int32Array.of(2));
      const r = out.rewards[0]!;
      if (gap === 'hold' && Math.abs(r - 0.1) < 1e-7) crossed++;
      // flat: a long position held into the gap is closed there (10 bp) and seen as flat after it
      if (gap === 'flat' && held === 1 && Math.abs(r + 0.001) < 1e-7 && !out.truncated[0] && out.finalObs[obsPosition] === 0) crossed++;
      held = out.truncated[0] ? 0 : out.finalObs[obsPosition]!;
    }
    assert.equal(crossed, 3, `${gap}: training steps across the gap book it`);
  }
});

test('equity at or below zero ends the evaluation as ruin and says so', () => {
  // 10 x equity long into a 15% fall at bar 110: equity 1 - 0.001 - 1.5 < 0.
  const bars = barsFromCloses(Array.from({ length: 140 }, (_, t) => (t < 110 ? 100 : 85)), 139);
  const env = createEnv({ kind: 'trading', num_envs: 1, lags: 1, n_actions: 3, max_position: 10, cost_bps: 1, validation_fraction: 0.5, reward_scale: 1 }, bars, true);
  env.reset();
  let steps = 0;
  for (;;) {
    steps++;
    if (env.step(Int32Array.of(2)).truncated[0]) break;
  }
  assert.equal(steps, 110 - 90, 'the walk (decisions from bar 90) stops at the step into the fall');
  const m = env.episodeMetrics();
  assert.deepEqual([m.ruined, m.return, m.max_drawdown, m.bars], [1, -1, 1, 110 - 90]);
  assert.deepEqual([m.buy_and_hold_ruined, m.buy_and_hold_return], [1, -1], 'buy-and-hold at 10 x equity is ruined on the same walk');
  assert.deepEqual([m.flat_ruined, m.flat_return], [0, 0]);
});

test('the exported per-bar series: equity ends at 1 + return, buy-and-hold is the CSV closes compounded, positions are the policy\'s (issue 16 item 5)', () => {
  // Daily SPY, always long at full position with a 1 bp cost: buy-and-hold's equity after bar
  // t0 + i is (close[t0+1] / close[t0] - c) * close[t0+i] / close[t0+1], t0 the first decision bar,
  // up to the rebalancing of the cost's drift (c^2 a day: 1e-8); bar for bar it is the float64
  // cash-and-units portfolio.
  const bars = readCsv(resolve('resources/data/spy_1d_1999-2020.csv'));
  const env = createEnv({ kind: 'trading', num_envs: 1, n_actions: 9, cost_bps: 1, reward_scale: 1 }, bars, true);
  assert.deepEqual(env.episodeSeries(), {}, 'nothing before an episode finished');
  const { metrics: m } = walkEnv(env, () => 8, 1);
  const s = env.episodeSeries();
  assert.equal(s.equity!.length, m.bars! + 1);
  assert.equal(s.position!.length, m.bars!);
  assert.equal(s.equity![0], 1);
  near(s.equity!.at(-1), 1 + m.return!, 1e-12, 'last equity = 1 + return');
  near(s.buy_and_hold_equity!.at(-1), 1 + m.buy_and_hold_return!, 1e-12, 'last buy-and-hold equity = 1 + its return');
  assert.ok(s.position!.every((p) => p === 1), 'always long at max_position 1');
  const d = parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } }).env;
  if (d.kind !== 'trading') throw new Error('a trading config');
  const ref = new Reference(bars, { ...refParams(d), nActions: 9, costBps: 1 });
  assert.equal(d.max_position, 1);
  const t0 = ref.decisionBars(true)[0]!;
  const c = bars.close;
  const portfolio = referenceWalk(ref, () => 1).equity;
  for (let i = 1; i <= 60; i++) {
    near(s.buy_and_hold_equity![i], (c[t0 + 1]! / c[t0]! - 1e-4) * (c[t0 + i]! / c[t0 + 1]!), 1e-6, `buy-and-hold equity after bar ${i}`);
    near(s.buy_and_hold_equity![i], portfolio[i]!, 1e-12, `buy-and-hold equity after bar ${i}, the portfolio's`);
  }
  assert.deepEqual(Array.from(s.equity!), Array.from(s.buy_and_hold_equity!), 'always long is buy-and-hold, bar by bar');

  // A fixed random policy on 6E: every bar of the equity and position series against the float64 reference walk.
  const e = presetWalkingEveryBar('trading-6e');
  const six = readCsv(resolve(e.data));
  const r6 = new Reference(six, refParams(e));
  const u = rng(5);
  const random = Array.from({ length: r6.decisionBars(true).length }, () => Math.floor(u() * e.n_actions));
  for (const gapPolicy of ['hold', 'flat'] as const) {
    const env6 = createEnv({ ...e, num_envs: 1, gap_policy: gapPolicy }, six, true);
    const { metrics: m6 } = walkEnv(env6, (k) => random[k]!, e.reward_scale);
    const s6 = env6.episodeSeries();
    const w = referenceWalk(r6, (_, k) => r6.position(random[k]!), gapPolicy);
    assert.equal(s6.equity!.length, w.equity.length);
    w.equity.forEach((v, i) => near(s6.equity![i], v, 1e-9, `${gapPolicy} equity at bar ${i}`));
    near(s6.equity!.at(-1), 1 + m6.return!, 1e-12, `${gapPolicy}: last equity = 1 + return`);
    const hold = referenceWalk(r6, () => e.max_position, gapPolicy);
    hold.equity.forEach((v, i) => near(s6.buy_and_hold_equity![i], v, 1e-9, `${gapPolicy} buy-and-hold equity at bar ${i}`));
    // The position over a bar is the last decision's target (0 after a flat-policy close before a gap and after the final close).
    assert.equal(s6.position!.at(-1), r6.position(random.at(-1)!));
    const maxAbs = Math.max(...Array.from(s6.position!, Math.abs));
    assert.ok(maxAbs <= e.max_position && maxAbs > 0);
  }
});

test('the trainer\'s evaluate() returns the walk\'s series: equity ends at 1 + eval return, buy-and-hold at 1 + its return', async () => {
  const config = parseRunConfig({ env: { kind: 'trading', data: 'x.csv' }, network: { hidden: [8] }, seed: 3 });
  const t = createTrainer({ config, market: readCsv(resolve('resources/data/spy_1d_1999-2020.csv')), backend: 'cpu' });
  try {
    const ev = await t.evaluate(1);
    const s = ev.series!;
    assert.equal(s.equity!.length, ev.metrics.bars! + 1);
    assert.equal(s.position!.length, ev.metrics.bars!);
    near(s.equity!.at(-1), 1 + ev.metrics.return!, 1e-12, 'last equity = 1 + eval return');
    near(s.buy_and_hold_equity!.at(-1), 1 + ev.metrics.buy_and_hold_return!, 1e-12, 'last buy-and-hold equity');
    await assert.rejects(t.evaluate(1, 'test'), /this run has no test span \(env\.test_fraction is 0\)/);
  } finally {
    t.close();
  }
});

test('the trainer walks the test span only when asked, and reports it as its own span', async () => {
  const config = parseRunConfig({ env: { kind: 'trading', data: 'x.csv', test_fraction: 0.2, embargo_bars: 5 }, network: { hidden: [8] }, seed: 3 });
  const t = createTrainer({ config, market: readCsv(resolve('resources/data/spy_1d_1999-2020.csv')), backend: 'cpu' });
  try {
    const [val, test] = [await t.evaluate(1), await t.evaluate(1, 'test')];
    // 5,241 SPY days: T = V = round(0.2 x 5241) = 1048: test [4193, 5241), validation [3140, 4188).
    assert.deepEqual([val.metrics.span_begin_bar, val.metrics.span_end_bar, test.metrics.span_begin_bar, test.metrics.span_end_bar], [3140, 4188, 4193, 5241]);
    assert.ok(val.metrics.bars_per_year !== test.metrics.bars_per_year, 'each span annualizes by its own bars per year');
  } finally {
    t.close();
  }
});

test("a trading run asking for the device collector on the CPU backend steps on the host and says why; 'auto' keeps trading on the host without a word", () => {
  const market = readCsv(resolve('resources/data/spy_1d_1999-2020.csv'));
  const make = (collector: 'device' | 'auto') =>
    createTrainer({ config: parseRunConfig({ env: { kind: 'trading', data: 'x.csv', num_envs: 4, collector }, network: { hidden: [8] } }), market, backend: 'cpu' });
  const asked = make('device');
  assert.equal(asked.info.collector, 'host');
  assert.equal(asked.info.collectorReason, 'the compute backend is the CPU; the device collector acts with the CUDA learner');
  asked.close();
  const auto = make('auto');
  assert.equal(auto.info.collector, 'host');
  assert.equal(auto.info.collectorReason, '');
  auto.close();
});
