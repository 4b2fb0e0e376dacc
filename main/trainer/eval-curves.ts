// The per-bar curves of each trading evaluation, one small JSON file per epoch in the run folder
// (`eval/epoch-<N>.json`, common/trading-curves.ts), so that metrics.jsonl stays lean and a past
// run can show any of its evaluations again.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { evalCurves, evalCurvesFile, EvalCurvesSchema, type EvalCurves } from '../../common/trading-curves.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { makeFolder } from './folders.ts';

/**
 * Downsamples an evaluation's per-bar series (EvalResult.series) and writes them atomically to
 * `<runDir>/eval/epoch-<epoch>.json`. Returns the curves written, or undefined when the
 * evaluation has none (not a trading run): nothing is written then.
 * @throws Error from the write (the caller reports it as a warning; the run goes on).
 */
export function writeEvalCurves(runDir: string, series: Record<string, ArrayLike<number>> | undefined, epoch: number, step: number): EvalCurves | undefined {
  const curves = series ? evalCurves(series, epoch, step) : undefined;
  if (!curves) return undefined;
  const path = join(runDir, evalCurvesFile(epoch));
  makeFolder(dirname(path));
  writeFileAtomic(path, JSON.stringify(curves));
  return curves;
}

/**
 * The curves of epoch `epoch`'s evaluation in `runDir`, or null when that file does not exist
 * (not a trading run, a run from before the curves were kept, or an epoch that did not end).
 * @throws Error naming the file when it exists but does not parse as EvalCurvesSchema.
 */
export function readEvalCurves(runDir: string, epoch: number): EvalCurves | null {
  const path = join(runDir, evalCurvesFile(epoch));
  if (!existsSync(path)) return null;
  const r = EvalCurvesSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!r.success) throw new Error(`${path} is not a valid evaluation-curves file: ${r.error.issues[0]?.message}`);
  return r.data;
}
