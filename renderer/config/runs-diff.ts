// The config diff of the runs drawn on the charts (the shown run and every overlaid one): one row
// per config field whose value is not the same in all of them, one column per run.
import { configLeaves } from './fields.ts';

/** A field that differs between runs: its dotted path and its value in each run (undefined where a run has no such field). */
export interface RunsDiffRow {
  path: string;
  values: unknown[];
}

/** Fields never compared: a run's name is its label, not a setting. */
const IGNORED = new Set(['name']);

/**
 * Rows for every config field whose values are not all equal across `configs` (compared as
 * JSON, so lists compare by content), sorted by path; [] for fewer than two configs.
 */
export function runsConfigDiff(configs: readonly unknown[]): RunsDiffRow[] {
  if (configs.length < 2) return [];
  const leaves = configs.map(configLeaves);
  const paths = new Set(leaves.flatMap((l) => [...l.keys()]));
  const rows: RunsDiffRow[] = [];
  for (const path of paths) {
    if (IGNORED.has(path)) continue;
    const values = leaves.map((l) => l.get(path));
    const first = JSON.stringify(values[0]);
    if (values.some((v) => JSON.stringify(v) !== first)) rows.push({ path, values });
  }
  return rows.sort((a, b) => a.path.localeCompare(b.path));
}
