// The run history as a table of key results (issue 16, item 4): which columns it has, how a
// column sorts, and the filter (every word must appear in the run's name, env, state or backend).
// It fits the side panel (issue 26 item 9): the name and three results are columns, the rest a
// line under the name.
import type { RunSummary } from '../../common/protocol.ts';
import { finishedAtTargetText, NO_RESUME_AT_TARGET, type EpochSummary } from '../../common/run.ts';
import { sortByValue, type SortValue } from './sort-rows.ts';
import { durationText } from './duration.ts';

/** A sortable column of the run table. */
export interface RunColumn {
  key: 'name' | 'env' | 'state' | 'epochs' | 'finalLoss' | 'lastEvalReturn' | 'stepsPerSec' | 'wallS' | 'backend';
  label: string;
  /** The cell's text. */
  text(r: RunSummary): string;
  /** The cell's whole text, where `text` is a short form of it (its title); undefined where `text` is all. */
  title?(r: RunSummary): string | undefined;
  /** The value it sorts by (undefined sorts last in either direction). */
  value(r: RunSummary): SortValue;
}

const num = (v: number | undefined, digits: number) => (v === undefined ? '–' : v.toFixed(digits));

/**
 * The last epoch's evaluation return with its unit where it has one: a trading run's return is
 * the summed step rewards in basis points of equity ("3770.8 bp"), CartPole's the episode's
 * reward (steps balanced), so a table of both kinds never shows two units as one.
 */
export function evalReturnText(r: RunSummary): string {
  if (r.lastEvalReturn === undefined) return '–';
  return r.env === 'trading' ? `${r.lastEvalReturn.toFixed(1)} bp` : r.lastEvalReturn.toFixed(1);
}

/**
 * How the run ended, in a word or two as the line under the run's name has room for ("stopped");
 * one that reached its target return says which ("at target 475": its epochs are beside it).
 */
function stateText(r: RunSummary): string {
  const t = r.stoppedAtTarget;
  if (r.state === 'finished' && t) return `at target ${Number(t.targetReturn.toPrecision(6))}`;
  return r.state ?? '–';
}

/** The whole of a state that stateText shortens: "finished at its target return: epoch 2's evaluation 500.0 >= 475 (schedule.target_return)". */
function stateTitle(r: RunSummary): string | undefined {
  const t = r.stoppedAtTarget;
  if (r.state === 'finished' && t) return finishedAtTargetText(t.epoch, t.evalReturn, t.targetReturn);
  return undefined;
}

/**
 * Why a row's Resume is off, or undefined when the run can resume: a run is live or starting, or
 * this run finished at its target return (schedule.target_return), which the host refuses to
 * train further (main/trainer/session.ts, in the same words: finishedAtTargetText).
 */
export function resumeBlocker(r: RunSummary, now: { busy: boolean; startPending: boolean }): string | undefined {
  if (now.busy) return 'a run is live: stop it first';
  if (now.startPending) return 'a run is starting';
  const t = r.stoppedAtTarget;
  if (t) return `it ${finishedAtTargetText(t.epoch, t.evalReturn, t.targetReturn)}, ${NO_RESUME_AT_TARGET}`;
  return undefined;
}

export const RUN_COLUMNS: RunColumn[] = [
  { key: 'name', label: 'Run', text: (r) => r.name, value: (r) => r.name },
  { key: 'env', label: 'Env', text: (r) => r.env, value: (r) => r.env },
  { key: 'state', label: 'State', text: stateText, title: stateTitle, value: (r) => r.state },
  { key: 'epochs', label: 'Epochs', text: (r) => `${r.epochs} epoch${r.epochs === 1 ? '' : 's'}`, value: (r) => r.epochs },
  { key: 'finalLoss', label: 'Final loss', text: (r) => (r.finalLoss === undefined ? '–' : r.finalLoss.toPrecision(3)), value: (r) => r.finalLoss },
  { key: 'lastEvalReturn', label: 'Eval return', text: evalReturnText, value: (r) => r.lastEvalReturn },
  { key: 'stepsPerSec', label: 'Steps/s', text: (r) => num(r.stepsPerSec, 0), value: (r) => r.stepsPerSec },
  { key: 'wallS', label: 'Wall', text: (r) => durationText(r.wallS), value: (r) => r.wallS },
  { key: 'backend', label: 'Backend', text: (r) => r.backend ?? '–', value: (r) => r.backend },
];

/** The columns the table shows as columns, in order (the run's name, then its key results); the others are the run's meta line (runMeta). */
export const TABLE_COLUMNS: RunColumn[] = RUN_COLUMNS.filter((c) => c.key === 'name' || c.key === 'finalLoss' || c.key === 'lastEvalReturn' || c.key === 'stepsPerSec');

/** When a run started, short: "Dec 2, 08:01". */
export const createdText = (ms: number) => new Date(ms).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** A run folder's name without the `yyyymmdd-hhmmss-` stamp the trainer puts first (the time is in the meta line); other names as they are. */
export function runTitle(name: string): string {
  return /^\d{8}-\d{6}-(.+)$/.exec(name)?.[1] ?? name;
}

/**
 * Short names for runs shown together (their folder names, `names`: the run a chart shows and
 * those drawn over it), each told apart from the others: the name without its date stamp
 * (runTitle); where two share it, the stamp's time follows ("walk-cartpole (22:05:38)"); where
 * that is shared too, the whole folder name. A legend or a column heading then fits one line,
 * with the folder name in its title.
 */
export function shortRunNames(names: readonly string[]): string[] {
  const unique = (labels: string[]) => labels.map((l) => labels.filter((m) => m === l).length === 1);
  const titles = names.map(runTitle);
  const titleUnique = unique(titles);
  const timed = names.map((n, i) => {
    const t = /^\d{8}-(\d\d)(\d\d)(\d\d)-/.exec(n);
    return titleUnique[i] || !t ? titles[i]! : `${titles[i]} (${t[1]}:${t[2]}:${t[3]})`;
  });
  const timedUnique = unique(timed);
  return names.map((n, i) => (timedUnique[i] ? timed[i]! : n));
}

/**
 * The live run's row as of its last ended epoch `e` (from the live frames): epochs, last step,
 * evaluation return and steps/s. The run list is read when the run starts and not again each
 * epoch, so the row read "live · 0 epochs" all run long.
 */
export function withLiveEpoch(r: RunSummary, e: EpochSummary | undefined): RunSummary {
  if (!e || e.epoch <= r.epochs) return r;
  return { ...r, epochs: e.epoch, lastStep: e.step, lastEvalReturn: e.eval_mean_return, stepsPerSec: e.steps_per_s };
}

/** The line under a run's name: the other columns (state, env, epochs, wall time, backend), each with its key, and its whole text where the text is short for it. */
export function runMeta(r: RunSummary): { key: RunColumn['key']; text: string; title?: string }[] {
  return RUN_COLUMNS.filter((c) => !TABLE_COLUMNS.includes(c)).map((c) => {
    const title = c.title?.(r);
    return title === undefined ? { key: c.key, text: c.text(r) } : { key: c.key, text: c.text(r), title };
  });
}

/** How the table is sorted. */
export interface RunSort {
  key: RunColumn['key'];
  dir: 'asc' | 'desc';
}

/** The runs whose name, env, state or backend hold every word of `filter` (case-insensitive), sorted by `sort`. */
export function runTable(runs: readonly RunSummary[], sort: RunSort, filter: string): RunSummary[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const col = RUN_COLUMNS.find((c) => c.key === sort.key) ?? RUN_COLUMNS[0]!;
  const kept = runs.filter((r) => {
    const hay = `${r.name} ${r.env} ${r.state ?? ''} ${r.backend ?? ''}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  return sortByValue(kept, (r) => col.value(r), sort.dir);
}
