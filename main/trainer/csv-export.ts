// CSV export of a run's raw records (DESIGN section 8: the charts draw summaries, the export
// holds every record at its logging interval): long format `series,step,value`, one row per
// record of each requested series, series in the order asked. x is the series' own axis (step
// for scalars and system samples, env step for episodes and evaluations, epoch for epoch times:
// common/protocol.ts FRAME_SERIES, SYSTEM_SERIES). Non-finite values are written NaN, Infinity, -Infinity (pandas and R read them).
import { epochSeriesPoints, FRAME_SERIES, systemSeriesPoints } from '../../common/protocol.ts';
import type { MetricsRecord } from './run-dir.ts';

/** Most rows one export holds (about 60 MB of text); a larger one is refused with the file to read instead. */
export const MAX_CSV_ROWS = 2_000_000;

/**
 * The CSV text of `names` from `records` (metrics.jsonl order).
 * @throws RangeError when the rows would exceed `maxRows` (the message names metrics.jsonl).
 */
export function recordsCsv(records: Iterable<MetricsRecord>, names: readonly string[], maxRows = MAX_CSV_ROWS): { text: string; rows: number } {
  const rows = new Map<string, string[]>(names.map((n) => [n, []]));
  let count = 0;
  const add = (name: string, x: number, v: number | string) => {
    const out = rows.get(name);
    if (!out) return;
    if (++count > maxRows) throw new RangeError(`the export would hold more than ${maxRows.toLocaleString('en')} rows: read metrics.jsonl in the run folder instead`);
    out.push(`${quote(name)},${x},${String(v)}`);
  };
  for (const r of records) {
    if (r.type === 'scalars') for (const name in r.values) add(name, r.step, r.values[name]!);
    else if (r.type === 'episode') add(FRAME_SERIES.episodicReturn, r.step, r.value);
    else if (r.type === 'system') for (const [name, v] of systemSeriesPoints(r)) add(name, r.step, v);
    else for (const [name, x, v] of epochSeriesPoints(r)) add(name, x, v);
  }
  const lines = ['series,step,value'];
  for (const out of rows.values()) for (const l of out) lines.push(l);
  return { text: `${lines.join('\n')}\n`, rows: count };
}

function quote(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
