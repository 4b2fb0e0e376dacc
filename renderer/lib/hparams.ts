// The hyperparameter table of runs (what TensorBoard's HParams and W&B's runs table show): one
// row per run, its key results, then its config fields as columns (each config flattened to
// dotted paths, "optim.lr"), by default only the fields whose value is not the same in every
// run. Any column sorts.
import type { RunSummary } from '../../common/protocol.ts';
import { configLeaves } from '../config/fields.ts';
import { RUN_COLUMNS } from './run-table.ts';
import { sortByValue, type SortValue } from './sort-rows.ts';

/** A column of the table: a result of the run history (RUN_COLUMNS) or a config field. */
export interface HparamColumn {
  /** A RUN_COLUMNS key for results, the dotted config path for config fields. */
  key: string;
  kind: 'result' | 'config';
  label: string;
}

/** A run's row: the run, and its config flattened by path. */
export interface HparamRow {
  run: RunSummary;
  config: Map<string, unknown>;
}

/** Result columns beside the config fields: every run-history column but the name (the row's heading) and the env (a config field). */
const RESULT_COLUMNS = RUN_COLUMNS.filter((c) => c.key !== 'name' && c.key !== 'env');
/** Config fields that are not settings: the name is the row's heading already. */
const NOT_COLUMNS = new Set(['name']);

/** The rows of `runs`, each with its config flattened (empty for a run listed without one). */
export function hparamRows(runs: readonly RunSummary[]): HparamRow[] {
  return runs.map((run) => ({ run, config: run.config ? configLeaves(run.config) : new Map() }));
}

/**
 * The columns: the results, then the config fields in config order (the first run's order, then
 * fields only later runs have); with `allFields` false only the fields whose values differ
 * between the rows (compared as JSON; missing counts as a value).
 */
export function hparamColumns(rows: readonly HparamRow[], allFields: boolean): HparamColumn[] {
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const r of rows)
    for (const p of r.config.keys())
      if (!seen.has(p) && !NOT_COLUMNS.has(p)) {
        seen.add(p);
        paths.push(p);
      }
  const varies = (p: string) => new Set(rows.map((r) => JSON.stringify(r.config.get(p)))).size > 1;
  return [
    ...RESULT_COLUMNS.map((c): HparamColumn => ({ key: c.key, kind: 'result', label: c.label })),
    ...paths.filter((p) => allFields || varies(p)).map((p): HparamColumn => ({ key: p, kind: 'config', label: p })),
  ];
}

/** A cell's text: results as the run history prints them; config lists as "64, 64", null as "none" (schedule.target_return off), a missing field as "–". */
export function hparamText(row: HparamRow, col: HparamColumn): string {
  if (col.kind === 'result') return RUN_COLUMNS.find((c) => c.key === col.key)!.text(row.run);
  const v = row.config.get(col.key);
  return v === undefined ? '–' : v === null ? 'none' : Array.isArray(v) ? v.join(', ') : String(v);
}

/** A cell's sort key: numbers as numbers, lists element-wise as zero-padded text, null (none) as an empty cell, anything else as text. */
export function hparamValue(row: HparamRow, col: HparamColumn): SortValue {
  if (col.kind === 'result') return RUN_COLUMNS.find((c) => c.key === col.key)!.value(row.run);
  const v = row.config.get(col.key);
  if (v === undefined || v === null || typeof v === 'number') return v ?? undefined;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'number' ? x.toFixed(6).padStart(24, '0') : String(x))).join(' ');
  return String(v);
}

/** How the table is sorted: a column's key and the direction. */
export interface HparamSort {
  key: string;
  dir: 'asc' | 'desc';
}

/** `rows` sorted by the column `sort.key` (by run name when no column has that key). */
export function sortHparamRows(rows: readonly HparamRow[], columns: readonly HparamColumn[], sort: HparamSort): HparamRow[] {
  const col = columns.find((c) => c.key === sort.key);
  return sortByValue(rows, (r) => (col ? hparamValue(r, col) : r.run.name), sort.dir);
}
