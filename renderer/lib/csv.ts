// CSV export of raw chart series: one row per point, long format (series, step, value), so
// series logged at different steps share one file. Non-finite values are written as NaN,
// Infinity and -Infinity (pandas and R read these).
import type { Series } from './series.ts';

/** CSV text of the given series; compacted ranges (memory bound) are noted in a comment line. */
export function seriesCsv(series: readonly { name: string; series: Series }[]): string {
  const lines = ['series,step,value'];
  for (const { name, series: s } of series) {
    if (s.compactedBelow > -Infinity) lines.unshift(`# ${name}: points before step ${s.compactedBelow} are min/max/last per bucket (memory bound); metrics.jsonl in the run folder has every point`);
    for (const [x, y] of s.points()) lines.push(`${quote(name)},${x},${String(y)}`);
  }
  return `${lines.join('\n')}\n`;
}

function quote(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
