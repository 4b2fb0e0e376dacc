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
 * The CSV text of `names` from records added in metrics.jsonl order, a chunk at a time (so a
 * long run's file is read and converted in chunks, the event loop free between them).
 */
export class CsvExport {
  private readonly rows: Map<string, string[]>;
  private count = 0;

  constructor(
    names: readonly string[],
    private readonly maxRows = MAX_CSV_ROWS,
  ) {
    this.rows = new Map(names.map((n) => [n, []]));
  }

  /** Adds the rows of `records`. @throws RangeError when the rows would exceed `maxRows` (the message names metrics.jsonl). */
  add(records: Iterable<MetricsRecord>): void {
    for (const r of records) {
      if (r.type === 'scalars') for (const name in r.values) this.row(name, r.step, r.values[name]!);
      else if (r.type === 'episode') this.row(FRAME_SERIES.episodicReturn, r.step, r.value);
      else if (r.type === 'system') for (const [name, v] of systemSeriesPoints(r)) this.row(name, r.step, v);
      else for (const [name, x, v] of epochSeriesPoints(r)) this.row(name, x, v);
    }
  }

  /** The CSV text (series in the order asked) and its number of rows. */
  result(): { text: string; rows: number } {
    const lines = ['series,step,value'];
    for (const out of this.rows.values()) for (const l of out) lines.push(l);
    return { text: `${lines.join('\n')}\n`, rows: this.count };
  }

  private row(name: string, x: number, v: number | string): void {
    const out = this.rows.get(name);
    if (!out) return;
    if (++this.count > this.maxRows) throw new RangeError(`the export would hold more than ${this.maxRows.toLocaleString('en')} rows: read metrics.jsonl in the run folder instead`);
    out.push(`${csvField(name)},${x},${String(v)}`);
  }
}

/** A CSV field: quoted (its quotes doubled) when it holds a quote, a comma or a newline. */
export function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
