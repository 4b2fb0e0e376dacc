// The run history's rows: runs trained together by `npm run train -- --seeds N` are drawn as one
// group row, in the list's order (the group where its first run is), that expands to its members.
import type { RunSummary } from '../../common/protocol.ts';
import type { GroupHeadline } from '../../common/seed-group.ts';

/** A block of the run history: one ungrouped run, or the runs of one `--seeds` group. */
export interface RunBlock {
  /** The group's name (its summary file without `.json`); undefined for a run of its own. */
  group?: string;
  runs: RunSummary[];
}

/** Blocks in list order: each run alone unless it has a seedGroup, whose runs are gathered where the first of them stands. */
export function groupRuns(runs: readonly RunSummary[]): RunBlock[] {
  const blocks: RunBlock[] = [];
  const byGroup = new Map<string, RunBlock>();
  for (const run of runs) {
    if (run.seedGroup === undefined) {
      blocks.push({ runs: [run] });
      continue;
    }
    let block = byGroup.get(run.seedGroup);
    if (!block) {
      block = { group: run.seedGroup, runs: [] };
      byGroup.set(run.seedGroup, block);
      blocks.push(block);
    }
    block.runs.push(run);
  }
  return blocks;
}

/**
 * A group's headline figure as the run history shows it: the summary's mean of the final
 * evaluation over seeds and its 95% interval, e.g. "480.5 (95% CI 472.3 to 488.8)" (Student-t
 * interval of the mean), or "480.5 (IQM CI 472.3 to 488.8)" for a summary written before it; a
 * group of one seed, "480.5 (1 seed: no interval)". A trading figure carries its unit, as a run's
 * row does: "-18.3 bp (95% CI -579.5 to 542.9 bp)" (a dash between two negative bounds read as
 * one more minus sign).
 */
export function groupHeadlineText(h: GroupHeadline | undefined): string {
  if (!h) return '–';
  const unit = h.figure === 'eval_mean_reward_bps' ? ' bp' : '';
  const f = (v: number) => v.toFixed(1);
  // One seed has no interval: "-554.5 (95% CI -554.5 to -554.5)" read as a certain figure.
  if (h.n < 2) return `${f(h.mean)}${unit} (1 seed: no interval)`;
  return `${f(h.mean)}${unit} (${h.interval === 'mean-t' ? '95% CI' : 'IQM CI'} ${f(h.ci95[0])} to ${f(h.ci95[1])}${unit})`;
}

/** How many members a group has of the seeds it trains: "3 seeds", or "2 of 3 seeds" while some are missing. */
export function groupMembersText(members: number, seeds: number): string {
  const total = Math.max(members, seeds);
  return members === total ? `${total} seed${total === 1 ? '' : 's'}` : `${members} of ${total} seeds`;
}
