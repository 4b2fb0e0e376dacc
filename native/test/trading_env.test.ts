import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEnv, type EnvOptions, type NativeEnv } from '../env.ts';
import type { MarketArrays } from '../trainer.ts';
import { barsFromCloses, FEATURES, Reference, randomBars, referenceWalk, rng, summarizeEquity, type RefParams } from './trading_reference.ts';

type TradingOptions = Extract<EnvOptions, { kind: 'trading' }>;

const DEFAULTS: RefParams = { lags: 2, nActions: 5, maxPosition: 1, costBps: 10, validationFraction: 0.3, maxGapBars: 5 };

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

// Alternating series of 100 bars, validation_fraction 0.3: training span bars 0..69, validation
// 70..99; bars 20..69 (25 up, 25 down) have a full lookback. Normalized features of bar t, s = +1
// (t odd) or -1: ret_1, ret_5, ret_15, range and vlm_z alternate between two values in equal
// numbers -> s; vol_20 is the same at every bar -> 0; tod = (t - 44.5) / std(20..69) =
// (t - 44.5) / sqrt(2499 / 12). With lags 2 a decision bar needs 21 bars of its span before it:
// training decision bars 21..68, validation 91..98.
const TOD_STD = Math.sqrt((50 * 50 - 1) / 12);
const handFeatures = (t: number): number[] => {
  const s = t % 2 === 1 ? 1 : -1;
  return [s, s, s, 0, s, s, (t - 44.5) / TOD_STD];
};
const barFromTod = (z: number): number => Math.round(44.5 + z * TOD_STD);

test('the reference computes the hand-worked raw features of the alternating series', () => {
  const ref = new Reference(alternatingBars(100), DEFAULTS);
  assert.equal(ref.trainEnd, 70);
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
  assert.ok(t >= 21 && t <= 68, `start bar ${t} is a training decision bar`);
  assertClose(obs, [...handFeatures(t), ...handFeatures(t - 1), 0, 0], 1e-5, 'reset observation');

  // Reward = position * simple return of the next bar - 10 bps * |position - weight held|, where
  // the weight held is the last position grown with the price and divided by the equity:
  // w = p (1 + g) / (1 + reward), so holding the same target pays for rebalancing its drift.
  const returnStd = (G_UP - G_DOWN) / 2;
  const g = (bar: number): number => (bar % 2 === 1 ? G_UP : G_DOWN);
  const plan: [number, number][] = [[4, 1], [4, 1], [1, -0.5], [2, 0], [0, -1]]; // action, position
  let held = 0;
  for (let k = 0; k < plan.length && t + k + 1 <= 68; k++) {
    const [action, pos] = plan[k]!;
    const step = env.step(Int32Array.of(action));
    const expected = pos * g(t + k + 1) - 0.001 * Math.abs(pos - held);
    assert.ok(Math.abs(step.rewards[0]! - expected) < 1e-8, `step ${k}: reward ${step.rewards[0]} vs ${expected}`);
    assert.equal(step.terminated[0], 0);
    assert.equal(step.truncated[0], 0);
    obs = step.nextObs;
    assertClose(obs, [...handFeatures(t + k + 1), ...handFeatures(t + k), pos, expected / returnStd], 1e-5, `observation after step ${k}`);
    held = (pos * (1 + g(t + k + 1))) / (1 + expected);
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
  const state = [0, 1, 2].map((i) => ({ bar: ref.locate(obs.subarray(i * d, (i + 1) * d), false), pos: 0, held: 0, last: 0, steps: 0 }));
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
      const r = ref.reward(t, actions[i]!, c.held, until);
      assert.ok(Math.abs(out.rewards[i]! - r) <= 1e-7 * (1 + Math.abs(r)) + 1e-9, `reward at bar ${t} (held to bar ${until})`);
      c.pos = ref.position(actions[i]!);
      c.held = ref.weightAfter(t, c.pos, until, r);
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
        Object.assign(c, { bar: ref.locate(nextObs, false), pos: 0, held: 0, last: 0, steps: 0 });
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
  assert.equal(walk[0], ref.trainEnd + 21, 'the first 21 validation bars are its warm-up: no observation reads a training bar');
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
    turnover: mean(agents.map((a) => a.walk.turnover)), costs: mean(agents.map((a) => a.walk.costs)), financing: 0,
    buy_and_hold_return: hold.total, buy_and_hold_sharpe: hold.sharpe, buy_and_hold_max_drawdown: hold.maxDrawdown,
  };
  for (const [k, v] of Object.entries(expected)) assert.ok(Math.abs(m[k]! - v) <= 1e-9 * (1 + Math.abs(v)), `${k}: ${m[k]} vs ${v}`);
  for (const base of ['flat', 'buy_and_hold', 'ma_crossover'])
    for (const k of ['return', 'return_simple', 'sharpe', 'sharpe_se', 'max_drawdown', 'ruined', 'turnover', 'costs', 'financing']) assert.ok(Number.isFinite(m[`${base}_${k}`]), `${base}_${k}`);
  assert.deepEqual(env.episodeMetrics(), {}, 'metrics are reported once');
  assert.equal(obs.length, 2 * d);
});

test('evaluation metrics of a constant half-long position match a hand computation, rebalancing and the final sale included', () => {
  // Alternating series: the validation walk decides at bars 91..98, so the returns are those into
  // bars 92..99. Each step trades from the weight held w to 0.5 (10 bp on |0.5 - w|), then the
  // units grow by 1 + g: reward r = 0.5 g - 0.001 |0.5 - w| and w' = 0.5 (1 + g) / (1 + r). The
  // last step also sells 0.5 (1 + g) of the step's starting equity at 10 bp.
  const env = createEnv(options(DEFAULTS, { seed: 1 }), alternatingBars(100), true);
  assert.equal(barFromTod(env.reset()[6]!), 91);
  const hand = (p: number) => {
    const r: number[] = [];
    let w = 0, equity = 1, turnover = 0, costs = 0;
    for (let k = 0; k < 8; k++) {
      const g = (92 + k) % 2 === 1 ? G_UP : G_DOWN;
      let step = p * g - 0.001 * Math.abs(p - w);
      turnover += Math.abs(p - w);
      costs += equity * 0.001 * Math.abs(p - w);
      if (k === 7) {
        turnover += (p * (1 + g)) / (1 + step);
        costs += equity * 0.001 * p * (1 + g);
        step -= 0.001 * p * (1 + g);
      }
      r.push(step);
      w = (p * (1 + g)) / (1 + step);
      equity *= 1 + step;
    }
    return { r, turnover, costs };
  };
  for (let k = 0; k < 8; k++) assert.equal(env.step(Int32Array.of(3)).truncated[0], k === 7 ? 1 : 0); // position +0.5
  const m = env.episodeMetrics();
  const agent = hand(0.5), hold = hand(1);
  // Bars per year of the validation span: 29 one-minute steps from bar 70 to bar 99 -> 525,960 a year.
  const bpy = (365.25 * 86400) / 60;
  const sharpe = (r: number[]): number => {
    const mu = r.reduce((a, b) => a + b, 0) / r.length;
    return (mu / Math.sqrt(r.reduce((a, b) => a + (b - mu) ** 2, 0) / (r.length - 1))) * Math.sqrt(bpy);
  };
  const compound = (r: number[]): number => r.reduce((e, x) => e * (1 + x), 1) - 1;
  const drawdown = (r: number[]): number => {
    let e = 1, peak = 1, dd = 0;
    for (const x of r) { e *= 1 + x; peak = Math.max(peak, e); dd = Math.max(dd, (peak - e) / peak); }
    return dd;
  };
  assert.ok(Math.abs(m.bars_per_year! - bpy) < 1e-6);
  assert.ok(Math.abs(m.return! - compound(agent.r)) < 1e-12);
  assert.ok(Math.abs(m.return_simple! - agent.r.reduce((a, b) => a + b, 0)) < 1e-12);
  assert.ok(Math.abs(m.buy_and_hold_return! - compound(hold.r)) < 1e-12);
  assert.ok(Math.abs(m.max_drawdown! - drawdown(agent.r)) < 1e-12);
  assert.ok(Math.abs(m.sharpe! - sharpe(agent.r)) < 1e-6 * Math.abs(sharpe(agent.r)));
  const perBar = sharpe(agent.r) / Math.sqrt(bpy);
  assert.ok(Math.abs(m.sharpe_se! - Math.sqrt((1 + perBar ** 2 / 2) / 8) * Math.sqrt(bpy)) < 1e-6 * m.sharpe_se!, 'Lo (2002) standard error');
  assert.ok(Math.abs(m.buy_and_hold_sharpe! - sharpe(hold.r)) < 1e-6 * Math.abs(sharpe(hold.r)));
  assert.equal(m.trade_fraction, 1 / 8);
  // Turnover: 0.5 in, ~0.5 out, and the rebalancing of the drift in between (~1% of the position per bar).
  assert.ok(Math.abs(m.turnover! - agent.turnover) < 1e-12 && agent.turnover > 1.02 && agent.turnover < 1.1, `turnover ${m.turnover}`);
  assert.ok(Math.abs(m.costs! - agent.costs) < 1e-15);
  assert.ok(Math.abs(m.buy_and_hold_turnover! - hold.turnover) < 1e-12 && Math.abs(m.buy_and_hold_costs! - hold.costs) < 1e-15);
  assert.deepEqual([m.financing, m.buy_and_hold_financing, m.flat_turnover, m.flat_costs], [0, 0, 0, 0]);
});

test('turnover and costs of a hand-worked walk: every trade, rebalancing and the final sale at 10 bp', () => {
  // 60 one-minute bars, validation [30, 60), lags 1: decisions at bars 50..58, the sale at bar 59.
  // Closes 100 up to bar 50, 110 at bars 51 and 52, 99 from bar 53 on. Positions (n_actions 5,
  // max_position 2): +1 at bar 50, 0 at 51, -1 at 52, 0 at 53, +2 at 54, 0 from 55 on.
  const closes = Array.from({ length: 60 }, (_, t) => (t <= 50 ? 100 : t <= 52 ? 110 : 99));
  const env = createEnv({ kind: 'trading', num_envs: 1, lags: 1, n_actions: 5, max_position: 2, cost_bps: 10, validation_fraction: 0.5, reward_scale: 1 }, barsFromCloses(closes), 'validation');
  env.reset();
  const actions = [3, 2, 1, 2, 4, 2, 2, 2, 2];
  for (const [k, a] of actions.entries()) assert.equal(env.step(Int32Array.of(a)).truncated[0], k === actions.length - 1 ? 1 : 0);
  const m = env.episodeMetrics();
  // By hand (E: equity before each trade; weights traded in units of E):
  //   bar 50: buy 1 (cost 0.001); bar 51: E = 0.999 + 0.1 = 1.099 and the long is worth 1.1: sell
  //   1.1 / 1.099 (cost 0.0011); bar 52: E = 1.0979: short 1 (cost 0.0010979); bar 53: E = 1.0979
  //   x 1.099 and the short is worth 0.9 x 1.0979: cover 0.9 / 1.099 (cost 0.001 x 0.9 x 1.0979);
  //   bar 54: E = 1.0979 x 1.0981: buy 2 (cost 0.002 E); bar 55: flat prices, the long is worth 2
  //   x E of bar 54 while equity is 0.998 of it: sell 2 / 0.998 (cost 0.002 E).
  const e54 = 1.0979 * 1.0981;
  const turnover = 1 + 1.1 / 1.099 + 1 + 0.9 / 1.099 + 2 + 2 / 0.998;
  const costs = 0.001 + 0.0011 + 0.0010979 + 0.001 * 0.9 * 1.0979 + 0.002 * e54 + 0.002 * e54;
  assert.ok(Math.abs(m.turnover! - turnover) < 1e-12, `turnover ${m.turnover} vs ${turnover}`);
  assert.ok(Math.abs(m.costs! - costs) < 1e-12, `costs ${m.costs} vs ${costs}`);
  assert.ok(Math.abs(m.return! - (e54 * 0.996 - 1)) < 1e-12, `return ${m.return}`);
  assert.equal(m.trade_fraction, 6 / 9, 'six of the nine decisions changed the position');
});

test('financing: a short and a long above 1x equity pay the rate on the borrowed value by calendar time', () => {
  // Flat prices and no cost: equity moves only by financing. Short 1 (borrowed stock: 1 x E) for
  // 4 one-minute bars, then long 2 (borrowed cash: 1 x E) for 4 bars, then long 1 (nothing
  // borrowed): each of the 8 financed bars charges 0.1 / year x E x 60 s.
  const bars = barsFromCloses(Array.from({ length: 60 }, () => 100));
  const spec = { kind: 'trading' as const, num_envs: 1, lags: 1, n_actions: 5, max_position: 2, cost_bps: 0, validation_fraction: 0.5, reward_scale: 1 };
  const actions = [1, 1, 1, 1, 4, 4, 4, 4, 3];
  const walk = (rate: number) => {
    const env = createEnv({ ...spec, financing_rate: rate }, bars, 'validation');
    env.reset();
    for (const a of actions) env.step(Int32Array.of(a));
    return env.episodeMetrics();
  };
  const m = walk(0.1);
  const perBar = (0.1 * 60) / (365.25 * 86400);
  let equity = 1, paid = 0;
  for (let k = 0; k < 8; k++) {
    paid += perBar * equity;
    equity *= 1 - perBar;
  }
  assert.ok(Math.abs(m.financing! - paid) < 1e-15, `financing ${m.financing} vs ${paid}`);
  assert.ok(Math.abs(m.return! - (equity - 1)) < 1e-15);
  assert.equal(m.costs, 0);
  assert.deepEqual([walk(0).financing, walk(0).return], [0, 0], 'no rate, no charge');
});

test('the spans never overlap: training, embargo, validation, embargo, test, and walk-forward folds whose test spans tile the end', () => {
  // 1000 bars, validation 0.2, test 0.2, embargo 10: test [800, 1000), validation [590, 790), training [0, 580).
  const bars = randomBars(1000, 3);
  const base = { kind: 'trading' as const, num_envs: 1, lags: 2, n_actions: 3, validation_fraction: 0.2, test_fraction: 0.2, embargo_bars: 10 };
  const span = (extra: Partial<TradingOptions>, role: 'validation' | 'test'): [number, number] => {
    const env = createEnv({ ...base, ...extra }, bars, role);
    env.reset();
    while (!env.step(Int32Array.of(1)).truncated[0]);
    const m = env.episodeMetrics();
    return [m.span_begin_bar!, m.span_end_bar!];
  };
  assert.deepEqual([span({}, 'validation'), span({}, 'test')], [[590, 790], [800, 1000]]);
  // Today's split when test_fraction and embargo are 0: validation is the last 20%.
  assert.deepEqual(span({ test_fraction: 0, embargo_bars: 0 }, 'validation'), [800, 1000]);
  // Walk-forward, 3 folds, test 0.1, validation 0.1, embargo 5: T = round(100 / 1.2) = 83 test bars
  // per fold, windows of W = 1000 - 2 x 83 = 834 bars from 0, 83 and 166, V = round(83.4) = 83.
  const wf = { test_fraction: 0.1, validation_fraction: 0.1, embargo_bars: 5, folds: 3 };
  const folds = [0, 1, 2].map((fold) => [span({ ...wf, fold }, 'validation'), span({ ...wf, fold }, 'test')]);
  assert.deepEqual(folds, [
    [[663, 746], [751, 834]],
    [[746, 829], [834, 917]],
    [[829, 912], [917, 1000]],
  ]);
  // Every training observation of fold 1 lies in its training span [83, 741) with its whole window.
  const ref = new Reference(bars, { lags: 2, nActions: 3, maxPosition: 1, costBps: 0.5, validationFraction: 0.1, maxGapBars: 5, testFraction: 0.1, embargoBars: 5, folds: 3, fold: 1 });
  assert.deepEqual(ref.spans, { train: { begin: 83, end: 741 }, validation: { begin: 746, end: 829 }, test: { begin: 834, end: 917 } });
  const train = createEnv({ ...base, ...wf, fold: 1, num_envs: 4, seed: 2, episode_length: 50 }, bars, 'train');
  let obs = train.reset();
  const seen: number[] = [];
  for (let s = 0; s < 300; s++) {
    for (let i = 0; i < 4; i++) seen.push(ref.locate(obs.subarray(i * 16, (i + 1) * 16), 'train'));
    obs = train.step(new Int32Array(4).fill(2)).nextObs;
  }
  assert.ok(!seen.includes(-1), 'every observation is a training decision bar of fold 1');
  const decisions = ref.decisionBars('train');
  assert.deepEqual([decisions[0], decisions.at(-1)], [83 + 21, 739], 'the first has its 21-bar window inside the span, the last its next bar');
  assert.ok(Math.min(...seen) >= 83 + 21 && Math.max(...seen) <= 740, 'observed bars: decisions and the bar after the last');
});

test('a feature window that would cross a span boundary or the embargo is skipped, not read', () => {
  // 600 bars, validation 0.3, test 0.2, embargo 7: test [480, 600), validation [293, 473),
  // embargo [286, 293) and [473, 480), training [0, 286). Changing the embargo's bars leaves the
  // validation walk as it was: its first decision bar has its window inside the span. (A training
  // bar would change it through the normalization statistics, which are the training span's.)
  const bars = randomBars(600, 8);
  const o = { ...options(DEFAULTS), test_fraction: 0.2, embargo_bars: 7 };
  const ref = new Reference(bars, { ...DEFAULTS, testFraction: 0.2, embargoBars: 7 });
  assert.deepEqual([ref.decisionBars('validation')[0], ref.decisionBars('validation').at(-1), ref.decisionBars('test')[0]], [293 + 21, 471, 480 + 21]);
  const before = cloneBars(bars);
  for (let t = 286; t < 293; t++) perturb(before, t, 1.1 + 0.001 * t);
  const walk = (m: MarketArrays) => {
    const env = createEnv(o, m, 'validation');
    const { obs, rewards } = evalWalk(env, ref.decisionBars('validation').length, 4);
    return { obs: obs.map((x) => Array.from(x.subarray(0, 14))), rewards, metrics: env.episodeMetrics() };
  };
  const a = walk(bars), b = walk(before);
  assert.deepEqual(b.obs, a.obs, 'no validation observation reads a training or embargo bar');
  assert.deepEqual(b.rewards, a.rewards);
  // The bars of the test span and the embargo before it never reach the validation walk either.
  const later = cloneBars(bars);
  for (let t = 473; t < 600; t++) perturb(later, t, 0.8 + 0.001 * t);
  assert.deepEqual(walk(later).metrics, a.metrics);
  assert.notDeepEqual(walk(cloneBarsWith(bars, 400)).metrics, a.metrics, 'control: a validation bar changes the walk');
});

/** A copy of the bars with bar t's prices raised by 5%. */
function cloneBarsWith(m: MarketArrays, t: number): MarketArrays {
  const c = cloneBars(m);
  perturb(c, t, 1.05);
  return c;
}

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
  // gap_policy flat: the position is sold before the gap, so the rewards after it owe nothing to it.
  const p = { ...DEFAULTS, lags: 4, validationFraction: 0.5 };
  const bars = randomBars(300, 21, [200]);
  const changed = cloneBars(bars);
  for (let t = 170; t <= 200; t++) perturb(changed, t, 1.01 + 0.001 * t);
  const ref = new Reference(bars, p);
  const walk = ref.decisionBars(true);
  const after = walk.filter((t) => t > 200);
  assert.equal(after[0], 201 + 20 + 3, 'the first decision bar after the gap has its whole lookback after it');
  const a = evalWalk(createEnv(options(p, { gap_policy: 'flat' }), bars, true), walk.length - 1, 3);
  const b = evalWalk(createEnv(options(p, { gap_policy: 'flat' }), changed, true), walk.length - 1, 3);
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
  const k205 = 205 - 173; // the walk starts at bar 150 + 23
  assert.ok(c.obs[k205]!.subarray(0, market).some((v, i) => v !== e.obs[k205]![i]), 'control: bar 205 reads bars <= 200');
});

test('features never read a later bar', () => {
  const p = { ...DEFAULTS, lags: 3, validationFraction: 0.5 };
  const bars = randomBars(240, 5), changed = cloneBars(bars);
  perturb(changed, 200, 1.05);
  const a = evalWalk(createEnv(options(p), bars, true), 90, 6), b = evalWalk(createEnv(options(p), changed, true), 90, 6);
  // The walk starts at bar 120 + 22 (its window inside the span): step k observes bar 142 + k,
  // whose window is bars 120 + k .. 142 + k.
  for (let k = 0; k <= 90; k++) assert.equal(a.obs[k]!.every((v, i) => v === b.obs[k]![i]), 142 + k < 200 || 120 + k > 200, `observation of bar ${142 + k}`);
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
  // Validation bars are normalized with the training statistics: the walk starts at bar 280 + 26.
  const ref = new Reference(bars, p), refChanged = new Reference(changed, p);
  assert.deepEqual(refChanged.mean, ref.mean);
  assert.equal(ref.decisionBars(true)[0], 306);
  assertClose(createEnv(options(p), changed, true).reset(), refChanged.obs(306, 0, 0), 1e-5, 'first validation observation');
});

test('invalid arguments are refused with messages that name them', () => {
  const bars = randomBars(120, 1);
  const make = (extra: Partial<TradingOptions>, m: unknown = bars, role: unknown = false): NativeEnv =>
    createEnv(options(DEFAULTS, extra), m as MarketArrays, role as boolean);
  assert.throws(() => make({}, randomBars(22, 1)), /too few bars: 22 bars give training \[0, 15\) \(15 bars\) in fold 0; a span needs at least 23 bars/);
  assert.throws(() => make({ validation_fraction: 0.1, lags: 16 }, randomBars(40, 1)), /too few bars: 40 bars give training \[0, 36\) \(36 bars\) in fold 0; a span needs at least 37/);
  assert.throws(() => make({}, randomBars(60, 1)), /too few bars: 60 bars give validation \[42, 60\) \(18 bars\)/);
  assert.throws(() => make({ test_fraction: 0.1 }, randomBars(100, 1)), /too few bars: 100 bars give test \[90, 100\) \(10 bars\)/);
  assert.throws(() => make({ test_fraction: 0.7 }), /validation_fraction \+ test_fraction must be below 1/);
  assert.throws(() => make({ folds: 2 }), /walk-forward \(folds > 1\) needs a test span: set test_fraction > 0/);
  assert.throws(() => make({ folds: 2, fold: 2, test_fraction: 0.2 }), /fold must be in \[0, folds\) = \[0, 2\), got 2/);
  assert.throws(() => make({}, bars, 'test'), /this config has no test span: set env\.test_fraction > 0/);
  assert.throws(() => make({ decision_interval: 0 }), { name: 'RangeError', message: /env\.decision_interval must be in \[1, 1e\+05\], got 0/ });
  assert.throws(() => make({ action_space: 'delta' as 'step' }), { name: 'RangeError', message: /env\.action_space must be one of 'target', 'step', got 'delta'/ });
  assert.throws(() => make({ financing_rate: 2 }), { name: 'RangeError', message: /env\.financing_rate must be in \[0, 1\], got 2/ });
  assert.throws(() => make({}, randomBars(120, 1, [19, 39, 59, 79, 99])), /no training bar has a full lookback of 20 bars inside its segment \(training span: 84 bars\)/);
  assert.throws(() => make({}, randomBars(120, 1, [20, 41, 62, 83])), /the training \[0, 84\) \(84 bars\) has no bar with 21 earlier bars of its span and segment/);
  assert.throws(() => make({}, randomBars(120, 1, [95, 110]), true), /the validation \[84, 120\) \(36 bars\) has no bar/);
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
  assert.throws(() => make({}, bars, 'yes'), { name: 'RangeError', message: /role must be one of 'train', 'validation', 'test', got 'yes'/ });
  assert.throws(() => make({}, bars, 3), { name: 'TypeError', message: /role must be 'train', 'validation' or 'test'/ });
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
