// A sweep's folder on disk, `<runsDir>/<name>-sweep/` (issue 25 item 3): the state file
// `sweep.json` that the sweep CLI rewrites atomically after every change, and the table of its
// trials as `table.json` and `table.csv`. The trainer host reads the state files as hostile
// input, as it reads run files: a folder named by a client must be a direct child of the runs
// folder (paths-policy.ts), the file a regular file (never through a link), bounded in size
// before it is read, and parsed with the schema; errors never quote the file.
import { readdir } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join } from 'node:path';
import { MAX_LISTED_SWEEPS, SWEEP_FOLDER_SUFFIX, SWEEP_STATE_FILE, SweepViewSchema, sweepListing, type SweepListing, type SweepView } from '../../common/sweep-state.ts';
import { SweepNameSchema } from '../../common/sweep.ts';
import { sweepTableRows, type TableCell } from '../../common/sweep-table.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { csvField } from './csv-export.ts';
import { isRealFolder } from './folders.ts';
import { resolveRunDir } from './paths-policy.ts';
import { readRegularText } from './regular-file.ts';

/** Largest sweep.json read (1000 trials of 32 parameters and 100 seeds stay far below it). */
export const MAX_SWEEP_STATE_BYTES = 16 * 1024 * 1024;

/** The folder of sweep `name` in `runsDir`. */
export function sweepDir(runsDir: string, name: string): string {
  return join(runsDir, `${name}${SWEEP_FOLDER_SUFFIX}`);
}

/**
 * The JSON of a sweep folder's state file, checked against SweepViewSchema (the fields the view
 * reads; the returned object keeps the rest as written), or undefined when the folder has none.
 * @throws Error when the folder or file is a link or not regular, too large, or not a sweep state (the message never quotes it).
 */
export function readSweepState(dir: string): { json: Record<string, unknown>; view: SweepView } | undefined {
  if (!isRealFolder(dir)) throw new Error(`${dir} is not a sweep folder (a folder of its own, not a link)`);
  const text = readRegularText(join(dir, SWEEP_STATE_FILE), MAX_SWEEP_STATE_BYTES);
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const r = SweepViewSchema.safeParse(json);
  if (!r.success) throw new Error(`${join(dir, SWEEP_STATE_FILE)} is not a sweep state file: remove it (or the folder) to start the sweep anew`);
  return { json: json as Record<string, unknown>, view: r.data };
}

/**
 * Writes the sweep's state file (`state`: the view plus what the CLI keeps to resume) and its
 * table (sweepTableRows) as table.json and table.csv, each atomically.
 */
export function writeSweepFiles(dir: string, state: SweepView & Record<string, unknown>): void {
  writeFileAtomic(join(dir, SWEEP_STATE_FILE), `${JSON.stringify(state, null, 1)}\n`);
  const view = SweepViewSchema.parse(state);
  const rows = sweepTableRows(view);
  writeFileAtomic(join(dir, 'table.json'), `${JSON.stringify({ sweep: view.name, state: view.state, metric: view.metric, span: 'validation', goal: view.goal, seeds: view.seeds, rows, test: view.test ?? null }, null, 2)}\n`);
  writeFileAtomic(join(dir, 'table.csv'), tableCsv(rows));
}

/** The rows as CSV: a header of every column (in first-seen order), one line per row, empty cells for null. */
export function tableCsv(rows: readonly Record<string, TableCell>[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const line = (cells: readonly TableCell[]) => cells.map((c) => (c === null || c === undefined ? '' : csvField(String(c)))).join(',');
  return `${[line(columns), ...rows.map((r) => line(columns.map((c) => r[c] ?? null)))].join('\n')}\n`;
}

/**
 * The sweep `name` (a client's: checked with SweepNameSchema) of the runs folder, as the view shows it.
 * @throws Error for a malformed name, a folder outside the runs folder or missing, or a state file that cannot be read (readSweepState).
 */
export function openSweep(runsDir: string, name: string): SweepView {
  if (!SweepNameSchema.safeParse(name).success) throw new Error('a sweep name has letters, digits, ".", "_" and "-" only');
  const state = readSweepState(resolveRunDir(runsDir, `${name}${SWEEP_FOLDER_SUFFIX}`));
  if (!state) throw new Error(`sweep '${name}' has no ${SWEEP_STATE_FILE} yet in the runs folder ${runsDir}`);
  return state.view;
}

/**
 * The sweeps of a runs folder, most recently updated first (at most MAX_LISTED_SWEEPS): every
 * `<name>-sweep` folder whose state file reads; one that does not is left out. The event loop runs between files.
 */
export async function listSweeps(runsDir: string): Promise<SweepListing[]> {
  let names: string[];
  try {
    names = await readdir(runsDir);
  } catch {
    return [];
  }
  const out: SweepListing[] = [];
  for (const entry of names) {
    const name = entry.endsWith(SWEEP_FOLDER_SUFFIX) ? entry.slice(0, -SWEEP_FOLDER_SUFFIX.length) : '';
    if (!SweepNameSchema.safeParse(name).success) continue;
    await nextTurn();
    try {
      const state = readSweepState(join(runsDir, entry));
      if (state) out.push(sweepListing(state.view));
    } catch {
      /* a link, a file too large, not a sweep: not listed */
    }
  }
  return out.sort((a, b) => b.updated.localeCompare(a.updated) || a.name.localeCompare(b.name)).slice(0, MAX_LISTED_SWEEPS);
}
