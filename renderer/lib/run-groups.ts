// The run history's rows: runs trained together by `npm run train -- --seeds N` are drawn as one
// group under a heading, in the list's order (the group where its first run is).
import type { RunSummary } from '../../common/protocol.ts';

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
