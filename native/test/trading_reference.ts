// A slow, obvious float64 reference of the trading environment (native/src/env/trading_env.h),
// written from the documented rules, for the tests to check the native env against.
import type { MarketArrays } from '../trainer.ts';
import { seededRandom } from '../../common/random.ts';

export const FEATURES = 7;
export const LOOKBACK = 20;
const DAY = 86400;
const YEAR = 365.25 * DAY;

export interface RefParams {
  lags: number;
  nActions: number;
  maxPosition: number;
  costBps: number;
  validationFraction: number;
  maxGapBars: number;
  /** Defaults: 0 (no test span), 0 bars, 1 fold, fold 0. */
  testFraction?: number;
  embargoBars?: number;
  folds?: number;
  fold?: number;
}

/** The reference's parameters of a trading env config (common/config.ts, TradingEnvSchema, defaults filled in). */
export function refParams(e: { lags: number; n_actions: number; max_position: number; cost_bps: number; validation_fraction: number; max_gap_bars: number; test_fraction: number; embargo_bars: number; folds: number; fold: number }): RefParams {
  return {
    lags: e.lags, nActions: e.n_actions, maxPosition: e.max_position, costBps: e.cost_bps, validationFraction: e.validation_fraction, maxGapBars: e.max_gap_bars,
    testFraction: e.test_fraction, embargoBars: e.embargo_bars, folds: e.folds, fold: e.fold,
  };
}

/** Bars [begin, end) of a span. */
export interface RefSpan {
  begin: number;
  end: number;
}

/** Which walk: training episodes, the validation span or the test span (true = validation, false = training). */
export type RefRole = 'train' | 'validation' | 'test' | boolean;
const roleOf = (r: RefRole): 'train' | 'validation' | 'test' => (r === true ? 'validation' : r === false ? 'train' : r);

/**
 * The spans as trading_spans.h documents them: T test bars per fold, a window of W = n - (K - 1) T
 * bars for fold k starting at k T, test last, then the embargo, validation, the embargo, training.
 */
export function referenceSpans(n: number, p: RefParams): { train: RefSpan; validation: RefSpan; test: RefSpan } {
  const fTest = p.testFraction ?? 0, g = p.embargoBars ?? 0, K = p.folds ?? 1, k = p.fold ?? 0;
  const T = Math.round(K === 1 ? n * fTest : (n * fTest) / (1 + (K - 1) * fTest));
  const W = n - (K - 1) * T;
  const V = Math.round(W * p.validationFraction);
  const end = k * T + W;
  const gt = T > 0 ? g : 0;
  const validation = { begin: end - T - gt - V, end: end - T - gt };
  return { train: { begin: k * T, end: validation.begin - g }, validation, test: { begin: end - T, end } };
}

function meanStd(x: number[]): [number, number] {
  const m = x.reduce((a, b) => a + b, 0) / x.length;
  const s = Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / x.length);
  return [m, s <= 1e-12 * Math.max(1, Math.abs(m)) ? 0 : s];
}

const tod = (ts: number): number => ((ts % DAY) + DAY) % DAY;

/** Everything the env derives from the bars, computed bar by bar. */
export class Reference {
  readonly n: number;
  readonly spans: { train: RefSpan; validation: RefSpan; test: RefSpan };
  /** The training span's end (its begin is spans.train.begin). */
  readonly trainEnd: number;
  readonly nominal: number;
  readonly segStart: number[] = [];
  readonly raw: (number[] | null)[] = [];
  readonly norm: number[][] = [];
  readonly mean: number[] = [];
  readonly std: number[] = [];
  readonly anchor: number;
  readonly returnStd: number;
  /** Bars per calendar year of the validation span (what its evaluation annualizes by). */
  readonly barsPerYear: number;

  constructor(readonly m: MarketArrays, readonly p: RefParams) {
    const n = m.close.length;
    this.n = n;
    this.spans = referenceSpans(n, p);
    this.trainEnd = this.spans.train.end;
    const t0 = this.spans.train.begin;
    const diffs: number[] = [];
    for (let i = t0 + 1; i < this.trainEnd; i++) diffs.push(m.timestamps[i]! - m.timestamps[i - 1]!);
    diffs.sort((a, b) => a - b);
    this.nominal = diffs[Math.floor((diffs.length - 1) / 2)]!;
    for (let t = 0; t < n; t++) {
      const gap = t > 0 && m.timestamps[t]! - m.timestamps[t - 1]! > p.maxGapBars * this.nominal;
      this.segStart.push(t === 0 || gap ? t : this.segStart[t - 1]!);
    }
    const counts = new Map<number, number>();
    for (let t = t0; t < this.trainEnd; t++)
      if (this.segStart[t] === t) { const k = Math.round(tod(m.timestamps[t]!)) % DAY; counts.set(k, (counts.get(k) ?? 0) + 1); }
    let best = 0, bestN = 0;
    for (const [k, c] of [...counts].sort((a, b) => a[0] - b[0])) if (c > bestN) { best = k; bestN = c; }
    const intraday = this.nominal < DAY;
    this.anchor = intraday ? best : 0;
    const c = m.close;
    for (let t = 0; t < n; t++) {
      if (t - this.segStart[t]! < LOOKBACK) { this.raw.push(null); continue; }
      const rets: number[] = [], vols: number[] = [];
      for (let j = t - 19; j <= t; j++) { rets.push(Math.log(c[j]! / c[j - 1]!)); vols.push(Math.log1p(m.volume[j]!)); }
      const [vm, vs] = meanStd(vols);
      this.raw.push([
        Math.log(c[t]! / c[t - 1]!),
        Math.log(c[t]! / c[t - 5]!),
        Math.log(c[t]! / c[t - 15]!),
        meanStd(rets)[1],
        (m.high[t]! - m.low[t]!) / c[t]!,
        vs > 0 ? (Math.log1p(m.volume[t]!) - vm) / vs : 0,
        intraday ? tod(m.timestamps[t]! - this.anchor) / DAY : 0,
      ]);
    }
    const train = [...Array(this.trainEnd).keys()].filter((t) => t - LOOKBACK >= t0 && this.raw[t] !== null);
    for (let f = 0; f < FEATURES; f++) {
      const [mu, sd] = meanStd(train.map((t) => this.raw[t]![f]!));
      this.mean.push(mu);
      this.std.push(sd);
    }
    this.returnStd = meanStd(train.map((t) => c[t]! / c[t - 1]! - 1))[1];
    for (let t = 0; t < n; t++) {
      const r = this.raw[t];
      this.norm.push(Array.from({ length: FEATURES }, (_, f) =>
        r && this.std[f]! > 0 ? Math.min(10, Math.max(-10, (r[f]! - this.mean[f]!) / this.std[f]!)) : 0));
    }
    this.barsPerYear = this.barsPerYearOf('validation');
  }

  span(role: RefRole): RefSpan {
    return this.spans[roleOf(role)];
  }

  /** Bars per calendar year of a span: (bars - 1) / its first-to-last time in years. */
  barsPerYearOf(role: RefRole): number {
    const s = this.span(role);
    return (s.end - s.begin - 1) / ((this.m.timestamps[s.end - 1]! - this.m.timestamps[s.begin]!) / YEAR);
  }

  /** Can the agent act at bar t in this span: its whole lookback (all lags) inside the span and its segment, its next bar too? */
  isDecision(t: number, role: RefRole): boolean {
    const warm = LOOKBACK + this.p.lags - 1;
    const s = this.span(role);
    if (t < s.begin || t + 1 >= s.end) return false;
    for (let b = t - warm; b <= t + 1; b++) if (b < s.begin || this.segStart[b] !== this.segStart[t]) return false;
    return true;
  }

  decisionBars(role: RefRole): number[] {
    return [...Array(this.n).keys()].filter((t) => this.isDecision(t, role));
  }

  /** Target position of an action, a multiple of equity: the middle action is 0, the last +maxPosition. */
  position(action: number): number {
    const half = (this.p.nActions - 1) / 2;
    return (this.p.maxPosition * (action - half)) / half;
  }

  /** The next decision bar after decision bar t in the same span (across gaps), or -1 at the span's last one. */
  nextDecision(t: number, role: RefRole): number {
    for (let b = t + 1; b < this.n; b++) if (this.isDecision(b, role)) return b;
    return -1;
  }

  /**
   * Reward (gap policy 'hold', no closing, no financing) of trading to `action`'s position at bar
   * t from the weight `held` (units x close / equity), holding until bar `until`.
   */
  reward(t: number, action: number, held: number, until = t + 1): number {
    const pos = this.position(action);
    return pos * (this.m.close[until]! / this.m.close[t]! - 1) - this.p.costBps * 1e-4 * Math.abs(pos - held);
  }

  /** The weight held at bar `until` after trading to `pos` at bar t and earning `reward` on the way: the units' value over equity. */
  weightAfter(t: number, pos: number, until: number, reward: number): number {
    return (pos * this.m.close[until]! / this.m.close[t]!) / (1 + reward);
  }

  /** The observation at bar t holding `pos` after a step that earned `lastReward`. */
  obs(t: number, pos: number, lastReward: number): number[] {
    const out: number[] = [];
    for (let k = 0; k < this.p.lags; k++) out.push(...this.norm[t - k]!);
    const scale = this.p.maxPosition * this.returnStd;
    out.push(pos / this.p.maxPosition, scale > 0 ? Math.min(10, Math.max(-10, lastReward / scale)) : 0);
    return out;
  }

  /** The decision bar whose market features equal obs (within tol); -1 if none. */
  locate(obs: ArrayLike<number>, role: RefRole, tol = 2e-5): number {
    const found = this.decisionBars(role).filter((t) => this.obs(t, 0, 0).slice(0, FEATURES * this.p.lags).every((v, i) => Math.abs(v - obs[i]!) <= tol));
    if (found.length > 1) throw new Error(`observation matches several bars: ${found.join(', ')}`);
    return found[0] ?? -1;
  }
}

/** What a walk of a span earned, portfolio by portfolio. */
export interface WalkResult {
  /** Equity at the first decision bar (1) and at every bar after it, up to the end or ruin. */
  equity: number[];
  /** Each step's P&L as a fraction of the equity at its decision bar. */
  stepReturns: number[];
  ruined: boolean;
  /** Decisions whose target position differed from the position decided before (flat at first and after a sale before a gap). */
  changes: number;
  /** Sum of |value traded| / equity at each trade (buys, sells, rebalancing, the final sale). */
  turnover: number;
  /** Transaction costs and financing paid, fractions of the initial equity. */
  costs: number;
  financing: number;
}

/** Options of a reference walk. */
export interface WalkOptions {
  gapPolicy?: 'hold' | 'flat';
  role?: RefRole;
  /** Decide every k decision bars (default 1). */
  interval?: number;
  /** Yearly rate on a long above 1x equity and on a short (default 0). */
  financingRate?: number;
}

/**
 * A cash-and-units portfolio walked over the decision bars (as trading_walk.h and
 * trading_booking.h document): at each decision (every `interval`-th decision bar) the portfolio
 * buys or sells to hold `positionAt(t, k)` (k: decision index) times its equity in units, paying
 * costBps on the value traded (rebalancing included), and holds the units until the next
 * decision; every bar in between is marked to market and charged financing on the financed value
 * (above 1x equity long, all of a short) of its decision bar. With gapPolicy 'flat' the units are
 * sold at the last bar before the first gap a step crosses; the units left are sold at the bar
 * after the last decision bar. Equity at or below zero stops the walk (ruin).
 */
export function referenceWalk(ref: Reference, positionAt: (t: number, k: number) => number, gapPolicyOrOptions: 'hold' | 'flat' | WalkOptions = 'hold'): WalkResult {
  const o: WalkOptions = typeof gapPolicyOrOptions === 'string' ? { gapPolicy: gapPolicyOrOptions } : gapPolicyOrOptions;
  const { gapPolicy = 'hold', role = 'validation', interval = 1, financingRate = 0 } = o;
  const close = ref.m.close, ts = ref.m.timestamps;
  const cost = ref.p.costBps * 1e-4;
  const bars = ref.decisionBars(role);
  const out: WalkResult = { equity: [1], stepReturns: [], ruined: false, changes: 0, turnover: 0, costs: 0, financing: 0 };
  let cash = 1, units = 0, decided = 0;
  for (let j = 0, k = 0; ; j += interval, k++) {
    const t = bars[j]!;
    const last = j + interval > bars.length - 1;
    const until = last ? bars.at(-1)! + 1 : bars[j + interval]!;
    const equityAtT = cash + units * close[t]!;
    const target = positionAt(t, k);
    if (target !== decided) out.changes++;
    decided = target;
    const traded = Math.abs(target * equityAtT - units * close[t]!);
    out.turnover += traded / equityAtT;
    out.costs += cost * traded;
    cash -= cost * traded + (target * equityAtT - units * close[t]!);
    units = (target * equityAtT) / close[t]!;
    const financed = (Math.max(target - 1, 0) + Math.max(-target, 0)) * equityAtT;
    let sellAt = -1;
    if (gapPolicy === 'flat') for (let b = t + 1; b < until && sellAt < 0; b++) if (ref.segStart[b + 1] !== ref.segStart[b]) sellAt = b;
    if (sellAt < 0 && last) sellAt = until;
    for (let b = t + 1; b <= until; b++) {
      if (units !== 0) {
        const charge = (financingRate * financed * (ts[b]! - ts[b - 1]!)) / YEAR;
        cash -= charge;
        out.financing += charge;
      }
      if (b === sellAt) {
        const value = units * close[b]!;
        const before = cash + value;
        if (before > 0) out.turnover += Math.abs(value) / before;
        out.costs += cost * Math.abs(value);
        cash += value - cost * Math.abs(value);
        units = 0;
      }
      const e = cash + units * close[b]!;
      if (e <= 0) {
        out.equity.push(0);
        out.stepReturns.push(-1);
        out.ruined = true;
        return out;
      }
      out.equity.push(e);
    }
    out.stepReturns.push((cash + units * close[until]!) / equityAtT - 1);
    if (last) return out;
    if (sellAt >= 0) decided = 0; // sold before a gap: reopening after it is a change
  }
}

/** Return, Sharpe (with Lo's 2002 standard error) and drawdown of an equity curve, in float64. */
export function summarizeEquity(equity: number[], barsPerYear: number): { total: number; sharpe: number; sharpeSe: number; maxDrawdown: number } {
  const r = equity.slice(1).map((e, i) => (e === 0 ? -1 : e / equity[i]! - 1));
  let peak = equity[0]!, maxDrawdown = 0;
  for (const e of equity) { peak = Math.max(peak, e); maxDrawdown = Math.max(maxDrawdown, (peak - e) / peak); }
  const n = r.length;
  const mean = r.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(r.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const s = n > 1 && sd > 0 ? mean / sd : 0;
  return {
    total: equity.at(-1)! / equity[0]! - 1,
    sharpe: s * Math.sqrt(barsPerYear),
    sharpeSe: s === 0 ? 0 : Math.sqrt((1 + s * s / 2) / n) * Math.sqrt(barsPerYear),
    maxDrawdown,
  };
}

/**
 * The 20/60 moving-average crossover: long `full` while the 20-close mean exceeds the 60-close
 * mean by more than 1e-9 of it (a smaller difference is a tie, and a tie is flat), else flat.
 */
export function maCrossover(close: ArrayLike<number>, full: number): (t: number) => number {
  const mean = (t: number, n: number): number => {
    let s = 0;
    for (let j = t - n + 1; j <= t; j++) s += close[j]!;
    return s / n;
  };
  return (t) => (t >= 59 && mean(t, 20) - mean(t, 60) > 1e-9 * mean(t, 60) ? full : 0);
}

/** Deterministic uniform [0, 1) stream (mulberry32). */
export const rng = seededRandom;

/**
 * Random 1-minute bars from 09:30 UTC on 2024-01-02; `gapsAfter` lists bar indices followed by a
 * `gapMinutes` hole. Returns, ranges and volumes are random; every bar is valid OHLCV.
 */
export function randomBars(n: number, seed: number, gapsAfter: number[] = [], gapMinutes = 90): MarketArrays {
  const u = rng(seed);
  const m = { timestamps: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n) };
  let ts = Date.UTC(2024, 0, 2, 9, 30) / 1000;
  let close = 100;
  for (let t = 0; t < n; t++) {
    const open = close;
    close = open * Math.exp((u() - 0.5) * 0.004);
    m.timestamps[t] = ts;
    m.open[t] = open;
    m.close[t] = close;
    m.high[t] = Math.max(open, close) * (1 + u() * 0.001);
    m.low[t] = Math.min(open, close) * (1 - u() * 0.001);
    m.volume[t] = Math.floor(u() * 500);
    ts += gapsAfter.includes(t) ? gapMinutes * 60 : 60;
  }
  return m;
}

/** 1-minute bars from 09:30 UTC with the given closes (open = previous close), a 90-minute hole after bar `gapAfter` (none by default). */
export function barsFromCloses(closes: number[], gapAfter = -1): MarketArrays {
  const n = closes.length;
  const m = { timestamps: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: Float64Array.from(closes), volume: new Float64Array(n).fill(100) };
  let ts = Date.UTC(2024, 0, 2, 9, 30) / 1000;
  for (let t = 0; t < n; t++) {
    m.timestamps[t] = ts;
    m.open[t] = t > 0 ? closes[t - 1]! : closes[0]!;
    m.high[t] = Math.max(m.open[t]!, closes[t]!);
    m.low[t] = Math.min(m.open[t]!, closes[t]!);
    ts += t === gapAfter ? 90 * 60 : 60;
  }
  return m;
}
