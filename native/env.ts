// Typed wrapper of the native Env class: a vectorized environment stepped from JavaScript
// (tests and tools; the trainer steps its envs natively). See native/src/addon/env_binding.cpp.
import { loadAddon } from './addon.ts';
import type { CartPoleEnvSchema, TradingEnvSchema } from '../common/config.ts';
import type { z } from 'zod';
import type { MarketArrays } from './trainer.ts';

/**
 * The `env` section of a run config plus the seed. Absent fields take the native defaults
 * (EnvSpec in native/src/env/make_env.h, equal to the config defaults); `data` and `bad_rows`
 * are read by the CSV loader, not by the native side.
 */
export type EnvOptions =
  | (Partial<z.output<typeof TradingEnvSchema>> & { kind: 'trading'; seed?: number })
  | (Partial<z.output<typeof CartPoleEnvSchema>> & { kind: 'cartpole'; seed?: number });

/** Result of one step of every copy (DESIGN section 3 on truncation and final observations). */
export interface EnvStep {
  /** [numEnvs x obsDim]; for a copy that ended, already its reset observation. */
  nextObs: Float32Array;
  rewards: Float32Array;
  /** 1 where the copy reached a terminal state (no bootstrap). */
  terminated: Uint8Array;
  /** 1 where the copy hit a time limit or the end of its data (bootstrap from finalObs). */
  truncated: Uint8Array;
  /** [numEnvs x obsDim]: the true last observation of a copy that ended, else equal to nextObs. */
  finalObs: Float32Array;
}

/** A native vectorized environment. */
export interface NativeEnv {
  readonly obsDim: number;
  readonly numActions: number;
  readonly numEnvs: number;
  /** Market features with their observation indices at every lag (the causal-sensitivity probe intervenes on each group). */
  readonly causalFeatures: { name: string; indices: number[] }[];
  /** Resets every copy; returns [numEnvs x obsDim] observations. */
  reset(): Float32Array;
  /**
   * Steps every copy. @param actions Int32Array [numEnvs], each in [0, numActions).
   * @throws RangeError for an action out of range, Error when called before reset().
   */
  step(actions: Int32Array): EnvStep;
  /**
   * Means of the environment metrics over the episodes finished since the last call ({} if none).
   * Trading evaluation: return (compounded), return_simple, sharpe, sharpe_se, max_drawdown, ruined,
   * turnover, costs, financing, trade_fraction, bars, bars_per_year (of the evaluated span), the
   * span (span_begin_bar, span_end_bar, span_first_time, span_last_time) and the same walk figures
   * of the flat_, buy_and_hold_ and ma_crossover_ baselines (native/src/env/trading_env.h;
   * regrouped by common/trading-eval.ts).
   */
  episodeMetrics(): Record<string, number>;
  /**
   * Per-bar series of the last evaluation episode that finished (trading eval env only; else {}):
   * `equity` and `buy_and_hold_equity`, compounded equity (1 at the walk's first decision bar,
   * then after each of its n bars: n + 1 values, fewer for a ruined walk), and `position`, the
   * position held over each bar as a multiple of equity (n values).
   */
  episodeSeries(): Record<string, Float64Array>;
}

/** What an environment is for: training copies, or the evaluation walk of the validation or test span. */
export type EnvRole = 'train' | 'validation' | 'test';

type EnvConstructor = new (env: EnvOptions, market: MarketArrays | undefined, role: EnvRole | boolean) => NativeEnv;

/**
 * Builds a native environment: training copies ('train', or false) or the evaluation walk of a
 * span ('validation', or true; 'test': trading with a test span only).
 * @throws TypeError/RangeError naming the invalid field, or the environment's own error
 *   (too few bars, bad bars, no test span, ...).
 */
export function createEnv(env: EnvOptions, market: MarketArrays | undefined, role: EnvRole | boolean): NativeEnv {
  const Env = loadAddon().Env as EnvConstructor;
  return new Env(env, market, role);
}
