// Evaluates one checkpoint of a run on one span, outside training (issue 25 item 1): the test
// span on demand for a chosen checkpoint, e.g. the one checkpoint selection kept as the best by
// validation. A sweep ranks its trials on their validation figures only and then calls this once,
// for the top trial, on the test span. Runs on the CPU backend (the checkpoint format is the same
// for both backends) and writes nothing to the run folder.
import { join } from 'node:path';
import type { RunConfig } from '../../common/config.ts';
import type { EvalSpan } from '../../common/trading-eval.ts';
import { createTrainer, type MarketArrays } from '../../native/trainer.ts';
import { expectationFor, readCheckpointHeader, verifiedCheckpoints, type Checkpoint } from './checkpoint.ts';
import { loadOhlcvOffThread } from './data/ohlcv.ts';
import { REPO_ROOT } from './paths.ts';
import { resolveDataPath } from './paths-policy.ts';
import { readRunConfig } from './run-dir.ts';

/** What evaluateCheckpoint reports: the checkpoint, its counters and the walk of the span. */
export interface CheckpointEvaluation {
  run_dir: string;
  /** The checkpoint's file name, e.g. `epoch-3`. */
  checkpoint: string;
  epoch: number;
  step: number;
  /** The validation mean return the checkpoint was written with (what selection read); null for a stop checkpoint. */
  validation_mean_return: number | null;
  span: EvalSpan;
  eval_mean_return: number;
  eval_episodes: number;
  /** The env's metric map (trading: common/trading-eval.ts regroups it). */
  metrics: Record<string, number>;
}

/**
 * The checkpoint `which` names in the run: 'best' (the highest validation mean return among the
 * run's verified checkpoints, the later on a tie: checkpoint retention's choice), 'latest' (most
 * steps) or a file name in `<run>/checkpoints/`.
 * @throws Error naming the run's checkpoints when none matches or none is valid.
 */
export function chooseCheckpoint(runDir: string, config: RunConfig, which: string): Checkpoint {
  const skipped: string[] = [];
  const all = [...verifiedCheckpoints(runDir, (why) => skipped.push(why), expectationFor(runDir, config))];
  const name = (c: Checkpoint) => c.path.slice(join(runDir, 'checkpoints').length + 1);
  const valid = all.map(name).join(', ') || 'none';
  let chosen: Checkpoint | undefined;
  if (which === 'latest') chosen = all[0];
  else if (which === 'best') {
    for (const c of all) {
      const r = c.meta.eval_mean_return;
      if (typeof r === 'number' && Number.isFinite(r) && (!chosen || r > (chosen.meta.eval_mean_return as number))) chosen = c;
    }
  } else chosen = all.find((c) => name(c) === which);
  if (!chosen)
    throw new Error(`${runDir}: no checkpoint '${which}' (valid checkpoints: ${valid}${skipped.length ? `; skipped: ${skipped.join('; ')}` : ''}); give best, latest or one of those names`);
  return chosen;
}

/**
 * Evaluates checkpoint `which` (chooseCheckpoint) of `runDir` greedily on `span`, with the run's
 * config and data.
 * @throws Error for a run folder without a valid config or checkpoint, unreadable data, or span
 *   'test' for a run without a test span (env.test_fraction 0).
 */
export async function evaluateCheckpoint(runDir: string, which: string, span: EvalSpan): Promise<CheckpointEvaluation> {
  const config = readRunConfig(runDir);
  if (span === 'test' && (config.env.kind !== 'trading' || config.env.test_fraction === 0))
    throw new Error(`${runDir} holds out no test span (env.test_fraction is 0): evaluate span validation, or train with test_fraction > 0`);
  const chosen = chooseCheckpoint(runDir, config, which);
  let market: MarketArrays | undefined;
  if (config.env.kind === 'trading') market = (await loadOhlcvOffThread(resolveDataPath(config.env.data, REPO_ROOT, undefined), { badRows: config.env.bad_rows })).bars;
  const trainer = createTrainer({ config, market, backend: 'cpu' });
  try {
    trainer.loadState(chosen.state);
    const ev = await trainer.evaluate(config.schedule.eval_episodes, span);
    const header = readCheckpointHeader(chosen.path);
    return {
      run_dir: runDir,
      checkpoint: chosen.path.slice(join(runDir, 'checkpoints').length + 1),
      epoch: header.epoch,
      step: header.step,
      validation_mean_return: header.eval_mean_return ?? null,
      span,
      eval_mean_return: ev.meanReturn,
      eval_episodes: ev.episodes,
      metrics: ev.metrics,
    };
  } finally {
    trainer.close();
  }
}
