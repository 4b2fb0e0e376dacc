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
  readonly trainEnd: number;
  readonly nominal: number;
  readonly segStart: number[] = [];
  readonly raw: (number[] | null)[] = [];
  readonly norm: number[][] = [];
  readonly mean: number[] = [];
  readonly std: number[] = [];
  readonly anchor: number;
  readonly returnStd: number;
  readonly barsPerYear: number;

  constructor(readonly m: MarketArrays, readonly p: RefParams) {
    const n = m.close.length;
    this.n = n;
    this.trainEnd = n - Math.round(n * p.validationFraction);
    const diffs: number[] = [];
    for (let i = 1; i < this.trainEnd; i++) diffs.push(m.timestamps[i]! - m.timestamps[i - 1]!);
    diffs.sort((a, b) => a - b);
    this.nominal = diffs[Math.floor((diffs.length - 1) / 2)]!;
    for (let t = 0; t < n; t++) {
      const gap = t > 0 && m.timestamps[t]! - m.timestamps[t - 1]! > p.maxGapBars * this.nominal;
      this.segStart.push(t === 0 || gap ? t : this.segStart[t - 1]!);
    }
    const counts = new Map<number, number>();
    for (let t = 0; t < this.trainEnd; t++)
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
    const train = [...Array(this.trainEnd).keys()].filter((t) => this.raw[t] !== null);
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
    this.barsPerYear = (this.trainEnd - 1) / ((m.timestamps[this.trainEnd - 1]! - m.timestamps[0]!) / YEAR);
  }

  /** Can the agent act at bar t (full lookback for all lags, next bar in the same segment) in this span? */
  isDecision(t: number, evalMode: boolean): boolean {
    const warm = LOOKBACK + this.p.lags - 1;
    if (t + 1 >= this.n || t - this.segStart[t]! < warm || this.segStart[t + 1] !== this.segStart[t]) return false;
    return evalMode ? t >= this.trainEnd : t + 1 < this.trainEnd;
  }

  decisionBars(evalMode: boolean): number[] {
    return [...Array(this.n).keys()].filter((t) => this.isDecision(t, evalMode));
  }

  /** Target position of an action, a multiple of equity: the middle action is 0, the last +maxPosition. */
  position(action: number): number {
    const half = (this.p.nActions - 1) / 2;
    return (this.p.maxPosition * (action - half)) / half;
  }

  /** The next decision bar after decision bar t in the same span (across gaps), or -1 at the span's last one. */
  nextDecision(t: number, evalMode: boolean): number {
    for (let b = t + 1; b < this.n; b++) if (this.isDecision(b, evalMode)) return b;
    return -1;
  }

  /** Reward (gap policy 'hold', no closing) of taking `action` at bar t while holding `prev`, held until bar `until`. */
  reward(t: number, action: number, prev: number, until = t + 1): number {
    const pos = this.position(action);
    return pos * (this.m.close[until]! / this.m.close[t]! - 1) - this.p.costBps * 1e-4 * Math.abs(pos - prev);
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
  locate(obs: ArrayLike<number>, evalMode: boolean, tol = 2e-5): number {
    const found = this.decisionBars(evalMode).filter((t) => this.obs(t, 0, 0).slice(0, FEATURES * this.p.lags).every((v, i) => Math.abs(v - obs[i]!) <= tol));
    if (found.length > 1) throw new Error(`observation matches several bars: ${found.join(', ')}`);
    return found[0] ?? -1;
  }
}

/** What a walk of the validation span earned, portfolio by portfolio. */
export interface WalkResult {
  /** Equity at the first decision bar (1) and at every bar after it, up to the end or ruin. */
  equity: number[];
  /** Each step's P&L as a fraction of the equity at its decision bar. */
  stepReturns: number[];
  ruined: boolean;
  /** Steps whose target position differed from the position held. */
  changes: number;
}

/**
 * A cash-and-units portfolio walked over the decision bars (as trading_env.h documents): at each
 * decision bar t the portfolio buys or sells to hold `positionAt(t, k)` (k: step index) times its
 * equity in units, paying costBps on |new - held| times that equity, and holds the units until
 * the next decision bar; every bar in between is marked to market. With gapPolicy 'flat' the
 * units are sold at the last bar before a gap (cost on |position| times the equity of the
 * decision bar); the final position is sold at the bar after the last decision bar. Equity at
 * or below zero stops the walk (ruin).
 */
export function referenceWalk(ref: Reference, positionAt: (t: number, k: number) => number, gapPolicy: 'hold' | 'flat', evalMode = true): WalkResult {
  const close = ref.m.close;
  const cost = ref.p.costBps * 1e-4;
  const walk = ref.decisionBars(evalMode);
  const out: WalkResult = { equity: [1], stepReturns: [], ruined: false, changes: 0 };
  let cash = 1, units = 0, held = 0;
  for (let k = 0; k < walk.length; k++) {
    const t = walk[k]!;
    const last = k === walk.length - 1;
    const until = last ? t + 1 : walk[k + 1]!;
    const equityAtT = cash + units * close[t]!;
    const target = positionAt(t, k);
    if (target !== held) out.changes++;
    cash = equityAtT - cost * Math.abs(target - held) * equityAtT - target * equityAtT;
    units = (target * equityAtT) / close[t]!;
    held = target;
    const sellAt = last ? until : gapPolicy === 'flat' && ref.segStart[until] !== ref.segStart[t] ? t + 1 : -1;
    for (let b = t + 1; b <= until; b++) {
      if (b === sellAt) {
        cash += units * close[b]! - cost * Math.abs(held) * equityAtT;
        units = 0;
        held = 0;
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
  }
  return out;
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

/** The 20/60 moving-average crossover, long `full` while the 20-close mean is above the 60-close mean. */
export function maCrossover(close: ArrayLike<number>, full: number): (t: number) => number {
  const mean = (t: number, n: number): number => {
    let s = 0;
    for (let j = t - n + 1; j <= t; j++) s += close[j]!;
    return s / n;
  };
  return (t) => (t >= 59 && mean(t, 20) > mean(t, 60) ? full : 0);
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
