// The per-bar curves of each trading evaluation, one small JSON file per epoch in the run folder
// (`eval/epoch-<N>.json`, common/trading-curves.ts), so that metrics.jsonl stays lean and a past
// run can show any of its evaluations again.
import { basename, dirname, join } from 'node:path';
import { evalCurves, evalCurvesFile, EvalCurvesSchema, type EvalCurves } from '../../common/trading-curves.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { makeRunSubfolder } from './folders.ts';
import { parseJsonText } from './presets.ts';
import { readRegularText } from './regular-file.ts';

/** Largest curves file read (2,000 points per curve make about 200 KB). */
const MAX_EVAL_CURVES_BYTES = 8 * 1024 * 1024;

/**
 * Downsamples an evaluation's per-bar series (EvalResult.series) and writes them atomically to
 * `<runDir>/eval/epoch-<epoch>.json`. Returns the curves written, or undefined when the
 * evaluation has none (not a trading run): nothing is written then.
 * @throws Error from the write (the caller reports it as a warning; the run goes on).
 */
export function writeEvalCurves(runDir: string, series: Record<string, ArrayLike<number>> | undefined, epoch: number, step: number): EvalCurves | undefined {
  const curves = series ? evalCurves(series, epoch, step) : undefined;
  if (!curves) return undefined;
  const file = evalCurvesFile(epoch);
  writeFileAtomic(join(makeRunSubfolder(runDir, dirname(file)), basename(file)), JSON.stringify(curves));
  return curves;
}

/**
 * The curves of epoch `epoch`'s evaluation in `runDir`, or null when that file does not exist
 * (not a trading run, a run from before the curves were kept, or an epoch that did not end).
 * @throws Error naming the file when it exists but does not parse as EvalCurvesSchema.
 */
export function readEvalCurves(runDir: string, epoch: number): EvalCurves | null {
  const path = join(runDir, evalCurvesFile(epoch));
  const text = readRegularText(path, MAX_EVAL_CURVES_BYTES);
  if (text === undefined) return null;
  const r = EvalCurvesSchema.safeParse(parseJsonText(text, path));
  if (!r.success) throw new Error(`${path} is not a valid evaluation-curves file: ${r.error.issues[0]?.message}`);
  return r.data;
}
