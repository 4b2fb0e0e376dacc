import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEnv, type EnvOptions, type NativeEnv } from '../env.ts';
import type { MarketArrays } from '../trainer.ts';
import { FEATURES, Reference, randomBars, referenceWalk, rng, summarizeEquity, type RefParams } from './trading_reference.ts';

type TradingOptions = Extract<EnvOptions, { kind: 'trading' }>;

const DEFAULTS: RefParams = { lags: 2, nActions: 5, maxPosition: 1, costBps: 10, validationFraction: 0.2, maxGapBars: 5 };

function options(p: RefParams, extra: Partial<TradingOptions> = {}): TradingOptions {
  return {
    kind: 'trading', lags: p.lags, n_actions: p.nActions, max_position: p.maxPosition, cost_bps: p.costBps,
    validation_fraction: p.validationFraction, max_gap_bars: p.maxGapBars, episode_length: 16, num_envs: 1, seed: 1, ...extra,
  };
}

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; i++)
    assert.ok(Math.abs(actual[i]! - expected[i]!) <= tol * (1 + Math.abs(expected[i]!)), `${what}[${i}]: got ${actual[i]}, expected ${expected[i]}`);
}

function cloneBars(m: MarketArrays): MarketArrays {
  return { timestamps: m.timestamps.slice(), open: m.open.slice(), high: m.high.slice(), low: m.low.slice(), close: m.close.slice(), volume: m.volume.slice() };
}

/** Scales bar t's prices by f and changes its volume (keeps it a valid bar). */
function perturb(m: MarketArrays, t: number, f: number): void {
  for (const k of ['open', 'high', 'low', 'close'] as const) m[k][t] = m[k][t]! * f;
  m.volume[t] = m.volume[t]! * 3 + 7;
}

const UP = 0.02, DOWN = -0.01;
const G_UP = Math.exp(UP) - 1, G_DOWN = Math.exp(DOWN) - 1;

/**
 * 1-minute bars from 09:30 UTC whose log return into bar t is +0.02 for odd t and -0.01 for even
 * t, high/low 1% outside open/close, volume 300 on up bars and 100 on down bars: every market
 * feature is known by hand.
 */
function alternatingBars(n: number): MarketArrays {
  const m = { timestamps: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n) };
  let logc = Math.log(100);
  for (let t = 0; t < n; t++) {
    const open = Math.exp(logc);
    if (t > 0) logc += t % 2 === 1 ? UP : DOWN;
    const close = t > 0 ? Math.exp(logc) : open;
    m.timestamps[t] = Date.UTC(2024, 0, 2, 9, 30) / 1000 + 60 * t;
    m.open[t] = open;
    m.close[t] = close;
    m.high[t] = Math.max(open, close) * 1.01;
    m.low[t] = Math.min(open, close) * 0.99;
    m.volume[t] = t % 2 === 1 ? 300 : 100;
  }
  return m;
}

// Alternating series of 100 bars, validation_fraction 0.2: training span bars 0..79; bars 20..79
// (30 up, 30 down) have a full lookback. Normalized features of bar t, s = +1 (t odd) or -1:
// ret_1, ret_5, ret_15, range and vlm_z alternate between two values in equal numbers -> s;
// vol_20 is the same at every bar -> 0; tod = (t - 49.5) / std(20..79) = (t - 49.5) / sqrt(3599 / 12).
const TOD_STD = Math.sqrt((60 * 60 - 1) / 12);
const handFeatures = (t: number): number[] => {
  const s = t % 2 === 1 ? 1 : -1;
  return [s, s, s, 0, s, s, (t - 49.5) / TOD_STD];
};
const barFromTod = (z: number): number => Math.round(49.5 + z * TOD_STD);

test('the reference computes the hand-worked raw features of the alternating series', () => {
  const ref = new Reference(alternatingBars(100), DEFAULTS);
  assert.equal(ref.trainEnd, 80);
  assert.equal(ref.nominal, 60);
  assert.equal(ref.anchor, 9 * 3600 + 30 * 60);
  const up = ref.raw[41]!, down = ref.raw[42]!;
  assertClose(up.slice(0, 6), [UP, 3 * UP + 2 * DOWN, 8 * UP + 7 * DOWN, (UP - DOWN) / 2, 1.01 - 0.99 * Math.exp(-UP), 1], 1e-12, 'up bar');
  assertClose(down.slice(0, 6), [DOWN, 2 * UP + 3 * DOWN, 7 * UP + 8 * DOWN, (UP - DOWN) / 2, 1.01 * Math.exp(-DOWN) - 0.99, -1], 1e-12, 'down bar');
  assert.equal(up[6], (41 * 60) / 86400);
  assert.equal(ref.raw[19], null);
  for (let t = 20; t < 100; t++) assertClose(ref.norm[t]!, handFeatures(t), 1e-9, `bar ${t}`);
  assert.ok(Math.abs(ref.returnStd - (G_UP - G_DOWN) / 2) < 1e-15);
});

test('observations hold the normalized features of the bar and its lags, then position and last reward', () => {
  const env = createEnv(options(DEFAULTS, { seed: 3 }), alternatingBars(100), false);
  assert.equal(env.obsDim, 7 * 2 + 2);
  assert.deepEqual(
    env.causalFeatures,
    ['ret_1', 'ret_5', 'ret_15', 'vol_20', 'range', 'vlm_z', 'tod'].map((name, f) => ({ name, indices: [f, 7 + f] })),
  );
  let obs = env.reset();
  const t = barFromTod(obs[6]!);
  assert.ok(t >= 21 && t <= 78, `start bar ${t} is a training decision bar`);
  assertClose(obs, [...handFeatures(t), ...handFeatures(t - 1), 0, 0], 1e-5, 'reset observation');

  // Reward = position * simple return of the next bar - 10 bps * |position change|.
  const returnStd = (G_UP - G_DOWN) / 2;
  const g = (bar: number): number => (bar % 2 === 1 ? G_UP : G_DOWN);
  const plan: [number, number][] = [[4, 1], [1, -0.5], [2, 0], [0, -1]]; // action, position
  let prev = 0;
  for (let k = 0; k < plan.length && t + k + 1 <= 78; k++) {
    const [action, pos] = plan[k]!;
    const step = env.step(Int32Array.of(action));
    const expected = pos * g(t + k + 1) - 0.001 * Math.abs(pos - prev);
    assert.ok(Math.abs(step.rewards[0]! - expected) < 1e-8, `step ${k}: reward ${step.rewards[0]} vs ${expected}`);
    assert.equal(step.terminated[0], 0);
    assert.equal(step.truncated[0], 0);
    obs = step.nextObs;
    assertClose(obs, [...handFeatures(t + k + 1), ...handFeatures(t + k), pos, expected / returnStd], 1e-5, `observation after step ${k}`);
    prev = pos;
  }
});

test('training episodes follow the decision bars across gaps, booking the move over each gap, never enter the validation span, and truncate at the limit or the span end', () => {
  // Gaps after bars 90 and 170 (90 minutes > 5 nominal bars); 0.25 of 300 bars held out.
  const bars = randomBars(300, 11, [90, 170]);
  const p = { ...DEFAULTS, lags: 3, nActions: 7, validationFraction: 0.25 };
  const ref = new Reference(bars, p);
  assert.deepEqual([...new Set(ref.segStart)], [0, 91, 171]);
  const env = createEnv(options(p, { num_envs: 3, episode_length: 40, seed: 5 }), bars, false);
  const d = env.obsDim;
  const u = rng(2);
  const obs = env.reset();
  const state = [0, 1, 2].map((i) => ({ bar: ref.locate(obs.subarray(i * d, (i + 1) * d), false), pos: 0, last: 0, steps: 0 }));
  let atLimit = 0, atSpanEnd = 0, acrossGaps = 0;
  for (let s = 0; s < 600; s++) {
    const actions = Int32Array.from(state, () => Math.floor(u() * p.nActions));
    const out = env.step(actions);
    state.forEach((c, i) => {
      const t = c.bar;
      assert.ok(t >= 0 && ref.isDecision(t, false), `copy ${i} acts at bar ${t}`);
      const next = ref.nextDecision(t, false);
      const until = next < 0 ? t + 1 : next;
      assert.ok(until < ref.trainEnd, 'a training step never reads a validation bar');
      if (ref.segStart[until] !== ref.segStart[t]) {
        acrossGaps++;
        assert.equal(until, ref.segStart[until]! + 20 + p.lags - 1, 'a step across a gap ends at the first bar with a full lookback after it');
      }
      const r = ref.reward(t, actions[i]!, c.pos, until);
      assert.ok(Math.abs(out.rewards[i]! - r) <= 1e-7 * (1 + Math.abs(r)) + 1e-9, `reward at bar ${t} (held to bar ${until})`);
      c.pos = ref.position(actions[i]!);
      c.last = r;
      c.steps++;
      const ended = next < 0 || c.steps >= 40;
      assert.equal(out.terminated[i], 0);
      assert.equal(out.truncated[i], ended ? 1 : 0, `truncation after bar ${t}, step ${c.steps}`);
      assertClose(out.finalObs.subarray(i * d, (i + 1) * d), ref.obs(until, c.pos, c.last), 1e-5, 'final observation');
      const nextObs = out.nextObs.subarray(i * d, (i + 1) * d);
      if (ended) {
        if (c.steps >= 40) atLimit++;
        else atSpanEnd++;
        Object.assign(c, { bar: ref.locate(nextObs, false), pos: 0, last: 0, steps: 0 });
        assertClose(nextObs, ref.obs(c.bar, 0, 0), 1e-5, 'reset observation');
      } else {
        assertClose(nextObs, out.finalObs.subarray(i * d, (i + 1) * d), 0, 'next observation');
        c.bar = until;
      }
    });
  }
  assert.ok(atLimit > 0 && atSpanEnd > 0 && acrossGaps > 0, `episode ends: ${atLimit} at the limit, ${atSpanEnd} at the span end; ${acrossGaps} steps across a gap`);
});

test('the evaluation walk visits every validation decision bar once per episode, booking the gap and warm-up bars, and closes the final position', () => {
  const bars = randomBars(260, 4, [200]);
  const p = { ...DEFAULTS, lags: 2, nActions: 9, validationFraction: 0.4, costBps: 2 };
  const ref = new Reference(bars, p);
  const walk = ref.decisionBars(true);
  assert.equal(walk[0], ref.trainEnd); // the validation span starts mid-segment: its lookback reads training bars
  assert.ok(!walk.includes(200) && !walk.includes(201 + 20) && walk.includes(201 + 21), 'no decision at the gap or before a full lookback');
  const env = createEnv(options(p, { num_envs: 2, seed: 9 }), bars, true);
  const d = env.obsDim;
  const u = rng(8);
  let obs = env.reset();
  for (let i = 0; i < 2; i++) assertClose(obs.subarray(i * d, (i + 1) * d), ref.obs(walk[0]!, 0, 0), 1e-5, 'start of the walk');
  const agents: { walk: ReturnType<typeof referenceWalk> }[] = [];
  for (let episode = 0; episode < 2; episode++) {
    const taken: number[][] = [[], []];
    const rewards: number[][] = [[], []];
    for (let k = 0; k < walk.length; k++) {
      const t = walk[k]!;
      const actions = Int32Array.from([0, 1], () => Math.floor(u() * p.nActions));
      const out = env.step(actions);
      for (let i = 0; i < 2; i++) {
        taken[i]!.push(ref.position(actions[i]!));
        rewards[i]!.push(out.rewards[i]!);
        const last = k === walk.length - 1;
        assert.equal(out.truncated[i], last ? 1 : 0);
        const seen = last ? t + 1 : walk[k + 1]!;
        const r = referenceWalk(ref, (_, j) => taken[i]![j]!, 'hold').stepReturns[k]!;
        assertClose(out.finalObs.subarray(i * d, (i + 1) * d), ref.obs(seen, last ? 0 : taken[i]![k]!, r), 1e-5, `observation after bar ${t}`);
        if (last) assertClose(out.nextObs.subarray(i * d, (i + 1) * d), ref.obs(walk[0]!, 0, 0), 1e-5, 'the walk restarts');
      }
      obs = out.nextObs;
    }
    for (let i = 0; i < 2; i++) {
      const w = referenceWalk(ref, (_, j) => taken[i]![j]!, 'hold');
      assertClose(rewards[i]!, w.stepReturns, 1e-6, `step rewards of copy ${i}`);
      assert.equal(w.equity.length - 1, walk.at(-1)! + 1 - walk[0]!, 'one return per bar, the gap and warm-up bars included');
      agents.push({ walk: w });
    }
  }
  const m = env.episodeMetrics();
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const s = agents.map((a) => summarizeEquity(a.walk.equity, ref.barsPerYear));
  const hold = summarizeEquity(referenceWalk(ref, () => 1, 'hold').equity, ref.barsPerYear);
  const expected: Record<string, number> = {
    return: mean(s.map((x) => x.total)), sharpe: mean(s.map((x) => x.sharpe)), sharpe_se: mean(s.map((x) => x.sharpeSe)),
    max_drawdown: mean(s.map((x) => x.maxDrawdown)), return_simple: mean(agents.map((a) => a.walk.stepReturns.reduce((x, y) => x + y, 0))),
    trade_fraction: mean(agents.map((a) => a.walk.changes / walk.length)), ruined: 0, bars: walk.at(-1)! + 1 - walk[0]!, bars_per_year: ref.barsPerYear,
    buy_and_hold_return: hold.total, buy_and_hold_sharpe: hold.sharpe, buy_and_hold_max_drawdown: hold.maxDrawdown,
  };
  for (const [k, v] of Object.entries(expected)) assert.ok(Math.abs(m[k]! - v) <= 1e-9 * (1 + Math.abs(v)), `${k}: ${m[k]} vs ${v}`);
  for (const base of ['flat', 'buy_and_hold', 'ma_crossover'])
    for (const k of ['return', 'return_simple', 'sharpe', 'sharpe_se', 'max_drawdown', 'ruined']) assert.ok(Number.isFinite(m[`${base}_${k}`]), `${base}_${k}`);
  assert.deepEqual(env.episodeMetrics(), {}, 'metrics are reported once');
  assert.equal(obs.length, 2 * d);
});

test('evaluation metrics of a constant half-long position match a hand computation', () => {
  // Alternating series: the validation walk is bars 80..98, so the returns are those into bars
  // 81..99: ten up moves (e^0.02 - 1) and nine down moves (e^-0.01 - 1). The entry costs
  // 10 bp x 0.5 of equity, and so does closing the position after the last step.
  const env = createEnv(options(DEFAULTS, { seed: 1 }), alternatingBars(100), true);
  assert.equal(barFromTod(env.reset()[6]!), 80);
  const agent: number[] = [], hold: number[] = [];
  for (let k = 0; k < 19; k++) {
    const out = env.step(Int32Array.of(3)); // position +0.5
    assert.equal(out.truncated[0], k === 18 ? 1 : 0);
    const g = (81 + k) % 2 === 1 ? G_UP : G_DOWN;
    const costs = (k === 0 ? 1 : 0) + (k === 18 ? 1 : 0);
    agent.push(0.5 * g - costs * 0.0005);
    hold.push(g - costs * 0.001);
  }
  const m = env.episodeMetrics();
  // Bars per year: 79 one-minute steps in the training span -> 525,960 a year.
  const bpy = (365.25 * 86400) / 60;
  const sharpe = (r: number[]): number => {
    const mu = r.reduce((a, b) => a + b, 0) / r.length;
    return (mu / Math.sqrt(r.reduce((a, b) => a + (b - mu) ** 2, 0) / (r.length - 1))) * Math.sqrt(bpy);
  };
  const compound = (r: number[]): number => r.reduce((e, x) => e * (1 + x), 1) - 1;
  assert.ok(Math.abs(m.return! - compound(agent)) < 1e-12);
  assert.ok(Math.abs(m.return_simple! - (0.5 * (10 * G_UP + 9 * G_DOWN) - 0.001)) < 1e-12);
  assert.ok(m.return! > m.return_simple!, 'compounding a rising series earns more than the fixed notional');
  assert.ok(Math.abs(m.buy_and_hold_return! - compound(hold)) < 1e-12);
  // Equity rises over every up/down pair, so every down move is the deepest drawdown: -0.5 (e^-0.01 - 1).
  assert.ok(Math.abs(m.max_drawdown! - 0.5 * -G_DOWN) < 1e-12);
  assert.ok(Math.abs(m.sharpe! - sharpe(agent)) < 1e-6 * Math.abs(sharpe(agent)));
  const perBar = sharpe(agent) / Math.sqrt(bpy);
  assert.ok(Math.abs(m.sharpe_se! - Math.sqrt((1 + perBar ** 2 / 2) / 19) * Math.sqrt(bpy)) < 1e-6 * m.sharpe_se!, 'Lo (2002) standard error');
  assert.ok(Math.abs(m.buy_and_hold_sharpe! - sharpe(hold)) < 1e-6 * Math.abs(sharpe(hold)));
  assert.equal(m.trade_fraction, 1 / 19);
});

test('the split puts the last round(n * validation_fraction) bars in validation, and training never reaches them', () => {
  // 100 bars, 0.2: training 0..79 (last decision bar 78, last observed bar 79), validation 80..99.
  const env = createEnv(options(DEFAULTS, { num_envs: 4, seed: 7, episode_length: 16 }), alternatingBars(100), false);
  let obs = env.reset();
  const seen = new Set<number>();
  for (let s = 0; s < 400; s++) {
    for (let i = 0; i < 4; i++) seen.add(barFromTod(obs[i * 16 + 6]!));
    const out = env.step(new Int32Array(4).fill(4));
    for (let i = 0; i < 4; i++) seen.add(barFromTod(out.finalObs[i * 16 + 6]!));
    obs = out.nextObs;
  }
  assert.equal(Math.min(...seen), 21, 'first decision bar: 20 lookback bars + 1 lag');
  assert.equal(Math.max(...seen), 79);
  const evalEnv = createEnv(options({ ...DEFAULTS, validationFraction: 0.3 }), alternatingBars(100), true);
  const tod = evalEnv.reset()[6]!; // statistics over bars 20..69 now
  assert.ok(Math.abs(tod - (70 - 44.5) / Math.sqrt((50 * 50 - 1) / 12)) < 1e-5, 'evaluation starts at bar 70');
});

function evalWalk(env: NativeEnv, steps: number, seed: number): { obs: Float32Array[]; rewards: number[] } {
  const u = rng(seed);
  const obs = [env.reset()];
  const rewards: number[] = [];
  for (let k = 0; k < steps; k++) {
    const out = env.step(Int32Array.of(Math.floor(u() * env.numActions)));
    obs.push(out.finalObs);
    rewards.push(out.rewards[0]!);
  }
  return { obs, rewards };
}

test('features after a gap do not depend on bars before it', () => {
  const p = { ...DEFAULTS, lags: 4, validationFraction: 0.5 };
  const bars = randomBars(300, 21, [200]);
  const changed = cloneBars(bars);
  for (let t = 170; t <= 200; t++) perturb(changed, t, 1.01 + 0.001 * t);
  const ref = new Reference(bars, p);
  const walk = ref.decisionBars(true);
  const after = walk.filter((t) => t > 200);
  assert.equal(after[0], 201 + 20 + 3, 'the first decision bar after the gap has its whole lookback after it');
  const a = evalWalk(createEnv(options(p), bars, true), walk.length - 1, 3);
  const b = evalWalk(createEnv(options(p), changed, true), walk.length - 1, 3);
  const market = 7 * p.lags;
  const firstAfter = walk.length - after.length;
  for (let k = 0; k < walk.length; k++) {
    const same = a.obs[k]!.subarray(0, market).every((v, i) => v === b.obs[k]![i]);
    // Bar b reads bars b - 23 .. b: only bars 170 .. 200 (before the gap) read a changed bar.
    assert.equal(same, walk[k]! < 170 || walk[k]! > 200, `market features at walk step ${k} (bar ${walk[k]})`);
  }
  for (let k = firstAfter; k < walk.length - 1; k++) assert.equal(a.rewards[k], b.rewards[k], `reward at bar ${walk[k]}`);

  // Without the gap the same change does reach the bars after bar 200.
  const noGap = randomBars(300, 21), noGapChanged = cloneBars(noGap);
  for (let t = 170; t <= 200; t++) perturb(noGapChanged, t, 1.01 + 0.001 * t);
  const c = evalWalk(createEnv(options(p), noGap, true), 60, 3), e = evalWalk(createEnv(options(p), noGapChanged, true), 60, 3);
  const k205 = 205 - 150;
  assert.ok(c.obs[k205]!.subarray(0, market).some((v, i) => v !== e.obs[k205]![i]), 'control: bar 205 reads bars <= 200');
});

test('features never read a later bar', () => {
  const p = { ...DEFAULTS, lags: 3, validationFraction: 0.5 };
  const bars = randomBars(240, 5), changed = cloneBars(bars);
  perturb(changed, 200, 1.05);
  const a = evalWalk(createEnv(options(p), bars, true), 100, 6), b = evalWalk(createEnv(options(p), changed, true), 100, 6);
  // The walk starts at bar 120: step k observes bar 120 + k.
  for (let k = 0; k <= 100; k++) assert.equal(a.obs[k]!.every((v, i) => v === b.obs[k]![i]), 120 + k < 200, `observation of bar ${120 + k}`);
});

test('normalization uses training-span statistics only', () => {
  const p = { ...DEFAULTS, lags: 7, nActions: 45, validationFraction: 0.3 };
  const bars = randomBars(400, 31, [150]);
  const changed = cloneBars(bars);
  for (let t = 280; t < 400; t++) perturb(changed, t, 0.7 + 0.002 * (t - 280));
  const run = (m: MarketArrays): number[] => {
    const env = createEnv(options(p, { num_envs: 4, seed: 12, episode_length: 32 }), m, false);
    const out: number[] = [...env.reset()];
    const u = rng(4);
    for (let s = 0; s < 300; s++) {
      const r = env.step(Int32Array.from({ length: 4 }, () => Math.floor(u() * 45)));
      out.push(...r.nextObs, ...r.rewards, ...r.truncated, ...r.finalObs);
    }
    return out;
  };
  assert.deepEqual(run(changed), run(bars));
  const trainChanged = cloneBars(bars);
  perturb(trainChanged, 60, 1.02);
  assert.notDeepEqual(run(trainChanged), run(bars), 'control: a training bar changes the statistics');
  // Validation bars are normalized with the training statistics: the walk starts at bar 280.
  const ref = new Reference(bars, p), refChanged = new Reference(changed, p);
  assert.deepEqual(refChanged.mean, ref.mean);
  assertClose(createEnv(options(p), changed, true).reset(), refChanged.obs(280, 0, 0), 1e-5, 'first validation observation');
});

test('invalid arguments are refused with messages that name them', () => {
  const bars = randomBars(120, 1);
  const make = (extra: Partial<TradingOptions>, m: unknown = bars, ev: unknown = false): NativeEnv =>
    createEnv(options(DEFAULTS, extra), m as MarketArrays, ev as boolean);
  assert.throws(() => make({}, randomBars(22, 1)), /too few bars: 22 bars give 18 training and 4 validation bars; need at least 23 training bars/);
  assert.throws(() => make({ validation_fraction: 0.1, lags: 16 }, randomBars(40, 1)), /too few bars: 40 bars give 36 training and 4 validation bars; need at least 37/);
  assert.throws(() => make({}, randomBars(120, 1, [19, 39, 59, 79, 99])), /no training bar has a full lookback of 20 bars inside its segment \(training span: 96 bars\)/);
  assert.throws(() => make({}, randomBars(120, 1, [20, 41, 62, 83])), /the training span \(96 bars\) has no bar with 21 earlier bars and a next bar in its segment/);
  assert.throws(() => make({}, randomBars(120, 1, [95, 110]), true), /validation span \(24 bars\) has no bar/);
  assert.throws(() => make({ lags: 17 }), { name: 'RangeError', message: /env\.lags must be in \[1, 16\], got 17$/ });
  assert.throws(() => make({ n_actions: 5.5 }), { name: 'RangeError', message: /env\.n_actions must be an integer/ });
  assert.throws(() => make({ n_actions: 44 }), { name: 'RangeError', message: /n_actions must be odd and >= 3 \(the middle action is the flat position\), got 44/ });
  assert.throws(() => make({ max_position: 20 }), { name: 'RangeError', message: /env\.max_position must be in \[0\.01, 10\], got 20/ });
  assert.throws(() => make({ gap_policy: 'close' as 'flat' }), { name: 'RangeError', message: /env\.gap_policy must be one of 'hold', 'flat', got 'close'/ });
  assert.throws(() => make({ cost_bps: -1 }), { name: 'RangeError', message: /env\.cost_bps/ });
  assert.throws(() => make({ validation_fraction: 0.95 }), /env\.validation_fraction/);
  assert.throws(() => make({}, null), { name: 'TypeError', message: /market must be an object/ });
  assert.throws(() => make({}, { ...bars, close: Float32Array.from(bars.close) }), { name: 'TypeError', message: /market\.close must be a Float64Array/ });
  assert.throws(() => make({}, { ...bars, volume: bars.volume.subarray(1) }), { name: 'RangeError', message: /market\.volume must be a Float64Array of length 120, got length 119/ });
  const unsorted = cloneBars(bars);
  unsorted.timestamps[50] = unsorted.timestamps[49]!;
  assert.throws(() => make({}, unsorted), /timestamps must be strictly increasing at bar 50/);
  const negative = cloneBars(bars);
  negative.low[7] = -1;
  assert.throws(() => make({}, negative), /prices must be finite and > 0 at bar 7/);
  assert.throws(() => make({}, bars, 'yes'), { name: 'TypeError', message: /eval must be a boolean/ });
  assert.equal(createEnv({ kind: 'cartpole' }, undefined, false).obsDim, 4, 'the same binding builds CartPole (market ignored)');
  assert.throws(() => createEnv({ kind: 'chess' } as unknown as EnvOptions, undefined, false), /env\.kind must be 'cartpole' or 'trading', got 'chess'/);
  const env = make({ num_envs: 2 });
  assert.throws(() => env.step(new Int32Array(2)), /step\(\) called before reset\(\)/);
  env.reset();
  assert.throws(() => env.step(new Int32Array(3)), { name: 'RangeError', message: /actions must be an Int32Array of length 2, got length 3/ });
  assert.throws(() => env.step(Int32Array.of(0, 5)), { name: 'RangeError', message: /action of copy 1 must be in \[0, 5\), got 5/ });
  assert.equal(FEATURES, 7);
});

test('reward_scale multiplies the training reward only: observations and evaluation metrics stay in return units', () => {
  const bars = alternatingBars(100);
  for (const evalMode of [false, true]) {
    const plain = createEnv(options(DEFAULTS, { seed: 5 }), bars, evalMode);
    const bps = createEnv(options(DEFAULTS, { seed: 5, reward_scale: 1e4 }), bars, evalMode);
    assert.deepEqual(Array.from(bps.reset()), Array.from(plain.reset()));
    for (let k = 0; k < 12; k++) {
      const a = Int32Array.of((k * 3) % 5);
      const p = plain.step(a), s = bps.step(a);
      assert.ok(Math.abs(s.rewards[0]! - 1e4 * p.rewards[0]!) <= 1e-6 * Math.abs(1e4 * p.rewards[0]!) + 1e-9, `step ${k}: ${s.rewards[0]} vs 1e4 x ${p.rewards[0]}`);
      assert.deepEqual(Array.from(s.nextObs), Array.from(p.nextObs), 'the last-reward feature is unscaled');
    }
    if (evalMode) {
      for (let k = 12; k < 19; k++) {
        plain.step(Int32Array.of(2));
        bps.step(Int32Array.of(2));
      }
      assert.deepEqual(bps.episodeMetrics(), plain.episodeMetrics());
    }
  }
});
