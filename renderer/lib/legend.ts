// What a chart's legend lists: one entry per curve drawn, in drawing order, so every line of a
// chart with several can be told apart. A smoothed line is two curves (the faint raw series and
// its debiased EMA on top) and so two entries; a min/max band is one. Each entry carries the
// standard scalar name(s) of what it draws (common/run.ts SCALAR_NAMES), shown as its tooltip.

/**
 * How a curve is drawn; the legend's swatch looks the same. `run`: a run drawn over the chart
 * whose lines take several dashes (a chip in its colour); `key`: a line only the overlaid runs
 * draw, shown by their dash alone (chartLegend).
 */
export type LegendKind = 'line' | 'raw' | 'dots' | 'band' | 'run' | 'key';

export interface LegendEntry {
  key: string;
  label: string;
  color: string;
  kind: LegendKind;
  /** Scalar name(s) drawn, e.g. "replay/beta" or "q/min … q/max". */
  series: string;
  /** SVG dash pattern of the curve (an overlaid run's lines), solid when absent. */
  dash?: string;
  /** The dash the runs drawn over the chart draw this curve with, shown beside its swatch in the muted text colour (when their lines take several dashes). */
  overlayDash?: string;
  /** An overlaid run's folder name, whole on hover (its label is its short name). */
  run?: string;
}

/** Dash patterns of an overlaid run's lines, by the line's place in its chart: the run's colour says which run, the dash which line. */
export const OVERLAY_DASHES = ['5 3', '1 3', '9 3 2 3', '3 6'] as const;

/** The dash pattern of an overlaid run's line number `i` of its chart (patterns repeat after OVERLAY_DASHES). */
export function overlayDash(i: number): string {
  return OVERLAY_DASHES[i % OVERLAY_DASHES.length]!;
}

/** A chart line as the legend needs it (SeriesChart's ChartLine fits). */
export interface LegendLine {
  name: string;
  label: string;
  color: string;
  smooth?: boolean;
  dots?: boolean;
  /** Its own dash pattern (an unsmoothed line drawn dashed), solid when absent. */
  dash?: string;
  /** The dash runs drawn over the chart draw it with, shown beside its own swatch. */
  overlayDash?: string;
}

/** A band drawn behind a chart's lines: the area between the series `lo` and `hi`. */
export interface ChartBand {
  lo: string;
  hi: string;
  color: string;
  label: string;
}

/**
 * Legend entries for `lines` (those with data, in drawing order) and the bands drawn behind
 * them. `smoothing` is the EMA weight in [0, 1), shown on the smoothed curve's entry. A line's
 * overlayDash goes on the entry of the curve overlaid runs draw (the EMA of a smoothed line).
 */
export function legendEntries(lines: readonly LegendLine[], smoothing: number, bands: readonly ChartBand[] = []): LegendEntry[] {
  const out: LegendEntry[] = bands.map((band) => ({ key: `${band.lo}-band`, label: band.label, color: band.color, kind: 'band', series: `${band.lo} … ${band.hi}` }));
  for (const l of lines) {
    const overlay = l.overlayDash ? { overlayDash: l.overlayDash } : {};
    if (l.smooth === false) {
      out.push({ key: l.name, label: l.label, color: l.color, kind: l.dots ? 'dots' : 'line', series: l.name, ...(l.dash ? { dash: l.dash } : {}), ...overlay });
    } else {
      out.push({ key: `${l.name}-raw`, label: `${l.label} (raw)`, color: l.color, kind: 'raw', series: l.name });
      out.push({ key: `${l.name}-smooth`, label: `${l.label} (EMA ${smoothing.toFixed(2)})`, color: l.color, kind: 'line', series: l.name, ...overlay });
    }
  }
  return out;
}

/** A run drawn over a chart, as the legend names it. */
export interface LegendRun {
  /** Its folder name, whole on hover. */
  folder: string;
  /** Its short name (run-table.ts shortRunNames). */
  label: string;
  color: string;
  /** The chart's lines drawn for it, each with its dash. */
  lines: readonly { line: LegendLine; dash: string }[];
}

/**
 * The legend of a chart and of the runs drawn over it: the chart's own curves (legendEntries,
 * `lines` and `bands`), then one entry per overlaid run, its short name in its colour and its
 * folder name on hover (an entry per run and line, named by the folder, took 3-4 legend lines at
 * 1920 px). Where the overlaid lines take one dash, the run's swatch has it; where several, the
 * run's swatch is a chip and each line's dash is shown once, beside the chart's own swatch of
 * that line, or alone (a `key` entry) for a line the shown run has no data for.
 */
export function chartLegend(lines: readonly LegendLine[], smoothing: number, bands: readonly ChartBand[], runs: readonly LegendRun[]): LegendEntry[] {
  const dashOf = new Map<string, { line: LegendLine; dash: string }>();
  for (const r of runs) for (const l of r.lines) if (!dashOf.has(l.line.name)) dashOf.set(l.line.name, l);
  const keyed = new Set([...dashOf.values()].map((l) => l.dash)).size > 1;
  const own = new Set(lines.map((l) => l.name));
  const ownEntries = legendEntries(keyed ? lines.map((l) => ({ ...l, overlayDash: dashOf.get(l.name)?.dash })) : lines, smoothing, bands);
  const keys: LegendEntry[] = keyed ? [...dashOf.values()].filter(({ line }) => !own.has(line.name)).map(({ line, dash }) => ({ key: `${line.name}-overlay`, label: line.label, color: line.color, kind: 'key', series: line.name, overlayDash: dash })) : [];
  const runEntries = runs.map((r): LegendEntry => ({
    key: `run:${r.folder}`,
    label: r.label,
    color: r.color,
    kind: keyed ? 'run' : 'line',
    series: r.lines.map((l) => l.line.name).join(', '),
    run: r.folder,
    ...(keyed || !r.lines[0] ? {} : { dash: r.lines[0].dash }),
  }));
  return [...ownEntries, ...keys, ...runEntries];
}

/** The step of niceTicks over [lo, hi] (hi > lo): 1, 2 or 5 x 10^k, about `count` steps. */
function niceStep(lo: number, hi: number, count: number, integer = false): number {
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const err = raw / power;
  const step = (err >= Math.sqrt(50) ? 10 : err >= Math.sqrt(10) ? 5 : err >= Math.sqrt(2) ? 2 : 1) * power;
  return integer ? Math.max(1, Math.round(step)) : step;
}

/**
 * Round tick values for a linear axis over [lo, hi]: multiples of 1, 2 or 5 x 10^k, about
 * `count` of them (d3-scale's tick rule), never finer than 1 when `integer`. Empty for a
 * non-finite or empty range; [lo] when lo == hi.
 */
export function niceTicks(lo: number, hi: number, count: number, integer = false): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi < lo) return [];
  if (hi === lo) return [lo];
  const step = niceStep(lo, hi, count, integer);
  const ticks: number[] = [];
  // The 1e-9 slack keeps an end that is a multiple of step despite float noise (3 * 0.1 > 0.3).
  const first = Math.ceil(lo / step - 1e-9);
  const last = Math.floor(hi / step + 1e-9);
  // A range of a few ulps (3 to 3 + 4e-16) has a step so fine that k passes 2^53, where k++ no
  // longer moves: no round ticks there (the page hung on a C51 loss whose EMA sat one ulp off).
  if (!(Math.abs(first) < 2 ** 52 && Math.abs(last) < 2 ** 52)) return [lo];
  for (let k = first; k <= last; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

/**
 * Round ticks (niceTicks) that cover [lo, hi]: widened by a step at an end short of the data, so
 * the axis ends on round values; fewer are asked for while that makes more than count + 1 (the
 * tick rule may give nearly twice the count). A flat range (to 1e-9 of its magnitude) is widened
 * by half its magnitude (1 at 0) first. Empty for a non-finite range.
 * @returns the ticks, ascending, and the step between them
 */
export function coveringTicks(lo: number, hi: number, count: number): { ticks: number[]; step: number } {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi < lo) return { ticks: [], step: NaN };
  // Flat, or flat but for float noise (an EMA one ulp off its raw series).
  if (hi - lo <= 1e-9 * Math.max(Math.abs(lo), Math.abs(hi))) [lo, hi] = [lo - 0.5 * (Math.abs(lo) || 1), hi + 0.5 * (Math.abs(hi) || 1)];
  const covering = (n: number) => {
    const ticks = niceTicks(lo, hi, n);
    // The rule's own step: with one tick inside the range (or none), the ends still step by it.
    const step = Number(niceStep(lo, hi, n).toPrecision(12));
    if (ticks.length === 0 || ticks[0]! > lo + 1e-12 * Math.abs(lo)) ticks.unshift(Number(((ticks[0] ?? hi) - step).toPrecision(12)));
    if (ticks.at(-1)! < hi - 1e-12 * Math.abs(hi)) ticks.push(Number((ticks.at(-1)! + step).toPrecision(12)));
    return { ticks, step };
  };
  let out = covering(count);
  for (let n = count - 1; n >= 1 && out.ticks.length > count + 1; n--) out = covering(n);
  return out;
}
