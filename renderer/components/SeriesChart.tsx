// One chart region: raw series faint with the smoothed curve on top, an optional min/max band,
// NaN/Inf markers, log-scale y, drag-to-zoom (re-bucketed from the full series) with
// follow-latest when not zoomed, CSV export of the raw series, and a legend (in the DOM, so it is
// read out) that names every curve. New data reaches the chart through the RedrawScheduler
// (lib/redraw.ts): at most once per animation frame, only while visible and only when a series it
// draws changed; each curve is downsampled to about the chart's pixel width, and dots are drawn
// only where few points are visible.
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Area, CartesianGrid, ComposedChart, Line, ReferenceArea, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { useStore } from 'zustand';
import { X_AXIS_LABEL, type XAxisKind } from '../lib/axis-map.ts';
import type { CsvRequest } from '../lib/csv-request.ts';
import { downloadBlob } from '../lib/download.ts';
import { downsampleBand, type Marker } from '../lib/downsample.ts';
import { chartImage, svgToPng } from '../lib/chart-image.ts';
import { chartFrame, TOOLTIP_STYLE } from '../lib/chart-style.ts';
import { tooltipValue } from '../lib/format.ts';
import { chartLegend, coveringTicks, niceTicks, overlayDash, type ChartBand, type LegendEntry, type LegendRun } from '../lib/legend.ts';
import { shortRunNames } from '../lib/run-table.ts';
import type { RedrawScheduler } from '../lib/redraw.ts';
import { ink, RAW_LINE_OPACITY, rawSwatchOpacity } from '../lib/theme.ts';
import { useTheme } from '../lib/theme-store.ts';
import { useScheduledRedraw } from '../lib/use-redraw.ts';
import type { Overlay, SeriesBook } from '../series-book.ts';
import type { Dashboard } from '../store.ts';

export interface ChartLine {
  name: string;
  label: string;
  color: string;
  /** Draw the debiased-EMA curve over the faint raw one (default true). */
  smooth?: boolean;
  /** Draw a dot on each point (for short series such as epoch times). */
  dots?: boolean;
  /** SVG dash pattern of the line, solid when absent: a line drawn over another it may coincide with lets that one show through the gaps. */
  dash?: string;
}

interface Props {
  dashboard: Dashboard;
  /** Decides when new data is drawn (shared by every chart of the page). */
  scheduler: RedrawScheduler;
  /** Fetches the raw records of the shown run from the trainer host for CSV export. */
  csv: CsvRequest;
  title: string;
  lines: ChartLine[];
  /** Names of a min/max pair drawn as a band behind the lines; `label` names it in the legend. */
  band?: ChartBand;
  /** x-axis label when the chart has no `xKind` (epochs). */
  xLabel: string;
  /** The axis its series are stored against; the chart then follows the dashboard's x-axis choice (step, env step, wall time). */
  xKind?: XAxisKind;
  /** Whole-number x (epochs): ticks step by at least 1. */
  xInteger?: boolean;
  /** What the y axis measures, with its unit (e.g. "seconds"). */
  yLabel?: string;
  /** How y values read on the axis and in the tooltip (default: 4 significant digits); the series and CSV keep the raw values. */
  yFormat?: (v: number) => string;
  logDefault?: boolean;
  /** Extra lines chosen at draw time (e.g. causal sensitivity per feature). */
  dynamicLines?: (names: (prefix: string) => string[]) => ChartLine[];
  /** What the chart says while a run has none of its points yet (default "No data yet."), e.g. that its first point comes when epoch 1 ends. */
  emptyText?: string;
}

type Pt = { x: number; y: number };
const MAX_MARKERS = 40;
/** Buckets per pixel of width: each keeps up to 3 points (min, max, last), so about one point per pixel. */
const BUCKETS_PER_PX = 1 / 3;
/** Dots are drawn on a line only when its visible points are at least this many pixels apart. */
const MIN_PX_PER_DOT = 8;
/** Pixels per x-axis tick label. */
const PX_PER_TICK = 90;
/** About how many y-axis ticks a chart's 220 px get (at most one more). */
const Y_TICKS = 5;
/** The plot's least right margin (px). */
const MARGIN_RIGHT = 12;
/** Width of one character of the 11 px tick labels (px; a digit of DejaVu Sans, the widest usual system-ui, is 7). */
const TICK_CHAR_PX = 7;

/**
 * The plot's right margin for an x axis whose last tick label is `lastTick`: room for half of
 * it, since it is centred on its tick, which may be the plot's right edge (a step axis ending at
 * 5000 read "500" there, its last digit cut by the chart's edge).
 */
export function plotRightMargin(lastTick: string | undefined): number {
  return Math.max(MARGIN_RIGHT, Math.ceil(((lastTick?.length ?? 0) * TICK_CHAR_PX) / 2) + 2);
}

/** A small picture of how an entry's curve is drawn, and of the dash overlaid runs draw it with (in the muted text colour: their colours say which run). */
function Swatch({ entry }: { entry: LegendEntry }) {
  const theme = useTheme();
  const color = ink(theme, entry.color);
  return (
    <>
      {entry.kind !== 'key' && (
        <svg width="18" height="10" aria-hidden="true">
          {entry.kind === 'band' || entry.kind === 'run' ? (
            <rect x="0" y="1" width="18" height="8" rx={entry.kind === 'run' ? 2 : 0} fill={color} fillOpacity={entry.kind === 'run' ? 1 : 0.3} />
          ) : (
            <line x1="0" y1="5" x2="18" y2="5" stroke={color} strokeWidth={entry.kind === 'raw' ? 1 : 2} strokeOpacity={entry.kind === 'raw' ? rawSwatchOpacity(theme) : 1} strokeDasharray={entry.dash} />
          )}
          {entry.kind === 'dots' && <circle cx="9" cy="5" r="3" fill={color} />}
        </svg>
      )}
      {entry.overlayDash && (
        <svg width="18" height="10" aria-hidden="true" data-overlay-dash={entry.overlayDash}>
          <line x1="0" y1="5" x2="18" y2="5" stroke={theme.muted} strokeWidth={2} strokeDasharray={entry.overlayDash} />
        </svg>
      )}
    </>
  );
}

/** SI prefixes for large axis labels: step counts read "110k" and "1.2M", not "1.1e+5". */
const SI: [number, string][] = [
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/**
 * Short axis labels: 4 significant digits; from 1e5 to below 1e12 with an SI prefix ("110k",
 * "1.25M", "3G"), exponent form beyond that and under 1e-3.
 */
export function tick(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e5 && a < 1e12) {
    const [unit, prefix] = SI.find(([u]) => a >= u)!;
    return `${Number((v / unit).toPrecision(4))}${prefix}`;
  }
  if (a !== 0 && (a >= 1e12 || a < 1e-3)) return v.toExponential(1);
  return String(Number(v.toPrecision(4)));
}

function toPoints(xs: Float64Array, ys: Float64Array, n: number, logY: boolean, toX: (x: number) => number): { pts: Pt[]; hidden: number } {
  const pts: Pt[] = [];
  let hidden = 0;
  for (let i = 0; i < n; i++) {
    const y = ys[i]!;
    if (logY && y <= 0) hidden++;
    else pts.push({ x: toX(xs[i]!), y });
  }
  return { pts, hidden };
}

/** Measures an element's width in CSS pixels. */
export function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [w, setW] = useState(600);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver((entries) => setW(Math.max(200, Math.floor(entries[0]!.contentRect.width))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, w];
}

/** The lines a chart draws from `book`: its fixed ones, then the dynamic ones. */
function linesOf(book: SeriesBook, lines: ChartLine[], dynamicLines: Props['dynamicLines']): ChartLine[] {
  return dynamicLines ? [...lines, ...dynamicLines((p) => book.names(p))] : lines;
}

/** A band and the book its edge series are in (the shown book when absent). */
type DrawnBand = ChartBand & { source?: SeriesBook };

/**
 * The bands a chart draws: its own, or in a seed group's view each line's band around the
 * members' mean (group-view.ts) instead (the spread over seeds, not within each run).
 */
function bandsOf(dashboard: Dashboard, lines: ChartLine[], band: ChartBand | undefined): DrawnBand[] {
  const view = dashboard.store.getState().view;
  const group = dashboard.group();
  if (group && view.kind === 'group') return group.bands(lines, view.band);
  return band ? [band] : [];
}

/** The runs drawn over the charts: overlaid past runs, and the members picked in a seed group's view. */
const overlaysOf = (dashboard: Dashboard) => [...dashboard.overlays(), ...dashboard.groupOverlays()];

/** What the chart's picture depends on: the book shown, the overlaid books and the versions of the series it draws. */
function dataSignature(book: SeriesBook, lines: ChartLine[], bands: readonly DrawnBand[], overlays: readonly Overlay[]): string {
  let sig = `${book.id}`;
  for (const l of lines) sig += `:${book.get(l.name)?.version ?? -1}`;
  for (const b of bands) sig += `:${b.lo}:${(b.source ?? book).get(b.lo)?.version ?? -1}:${(b.source ?? book).get(b.hi)?.version ?? -1}`;
  for (const o of overlays) sig += `|${o.book.id}`;
  return sig;
}

/** One chart region (heading = title): raw series faint, smoothed on top, NaN/Inf markers, optional band, legend, log y, follow-latest, drag zoom and CSV export. */
export const SeriesChart = memo(function SeriesChart({ dashboard, scheduler, csv, title, lines, band, xLabel: fixedXLabel, xKind, xInteger = false, yLabel, yFormat, logDefault = false, dynamicLines, emptyText = 'No data yet.' }: Props) {
  const drawnSig = useRef('');
  const changed = useCallback(() => {
    const book = dashboard.shown();
    const all = linesOf(book, lines, dynamicLines);
    return dataSignature(book, all, bandsOf(dashboard, all, band), overlaysOf(dashboard)) !== drawnSig.current;
  }, [dashboard, lines, dynamicLines, band]);
  const { ref: sectionRef, tick: drawTick } = useScheduledRedraw(scheduler, changed);
  const smoothing = useStore(dashboard.store, (s) => s.smoothing);
  const chosenAxis = useStore(dashboard.store, (s) => s.xAxis);
  const isGroup = useStore(dashboard.store, (s) => s.view.kind === 'group');
  // Nothing trained or opened yet: the empty chart says how to fill it.
  const noRunYet = useStore(dashboard.store, (s) => s.view.kind === 'live' && !s.runDir);
  const shownAxis = xKind ? chosenAxis : undefined;
  const xLabel = shownAxis ? X_AXIS_LABEL[shownAxis] : fixedXLabel;
  const [logY, setLogY] = useState(logDefault);
  const [zoom, setZoom] = useState<[number, number] | undefined>();
  const [drag, setDrag] = useState<{ from: number; to?: number } | undefined>();
  const [ref, width] = useWidth();
  const theme = useTheme();
  const frame = chartFrame(theme);
  const id = `chart-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;

  const drawn = useMemo(() => {
    const book = dashboard.shown();
    const all = linesOf(book, lines, dynamicLines);
    const overlays = overlaysOf(dashboard);
    const bands = bandsOf(dashboard, all, band);
    drawnSig.current = dataSignature(book, all, bands, overlays);
    // x as shown (display) and as stored (native): zoom is kept in display units.
    const toShown = (x: number) => (xKind && shownAxis ? book.axis.convert(xKind, shownAxis, x) : x);
    const toNative = (x: number) => (xKind && shownAxis && Number.isFinite(x) ? book.axis.convert(shownAxis, xKind, x) : x);
    const z0 = zoom ? toNative(zoom[0]) : -Infinity;
    const z1 = zoom ? toNative(zoom[1]) : Infinity;
    const buckets = Math.max(50, Math.floor(width * BUCKETS_PER_PX));
    let points = 0;
    let hidden = 0;
    const markers: (Marker & { label: string })[] = [];
    const out = all.flatMap((line) => {
      const s = book.get(line.name);
      if (!s || s.length === 0) return [];
      points += s.length;
      const v = s.view(buckets, z0, z1);
      const raw = toPoints(v.raw.x, v.raw.y, v.raw.length, logY, toShown);
      const smooth = toPoints(v.smooth.x, v.smooth.y, v.smooth.length, logY, toShown);
      hidden += raw.hidden;
      for (const m of v.raw.markers) if (markers.length < MAX_MARKERS) markers.push({ ...m, x: toShown(m.x), label: line.label });
      const dots = !!line.dots && raw.pts.length * MIN_PX_PER_DOT <= width;
      return [{ line, raw: raw.pts, smooth: smooth.pts, dots }];
    });
    const bandAreas = bands.flatMap((b) => {
      const lo = (b.source ?? book).get(b.lo);
      const hi = (b.source ?? book).get(b.hi);
      if (!lo || !hi) return [];
      const d = downsampleBand(lo, hi, z0, z1, buckets);
      const pts: { x: number; range: [number, number] }[] = [];
      for (let i = 0; i < d.length; i++) if (!logY || d.lo[i]! > 0) pts.push({ x: toShown(d.x[i]!), range: [d.lo[i]!, d.hi[i]!] });
      return pts.length ? [{ band: { lo: b.lo, hi: b.hi, color: b.color, label: b.label }, pts }] : [];
    });
    // Overlaid past runs: each fixed line's smoothed curve (raw for unsmoothed lines), dashed, in the run's colour.
    const shownDir = dashboard.shownRunDir();
    const folder = (dir: string) => dir.split(/[\\/]/).pop() ?? dir;
    const shortNames = shortRunNames([...(shownDir ? [folder(shownDir)] : []), ...overlays.map((o) => o.name)]).slice(shownDir ? 1 : 0);
    const runs: LegendRun[] = [];
    const overlaid = overlays.flatMap((o, k) => {
      const oShown = (x: number) => (xKind && shownAxis ? o.book.axis.convert(xKind, shownAxis, x) : x);
      const oNative = (x: number) => (xKind && shownAxis && Number.isFinite(x) ? o.book.axis.convert(shownAxis, xKind, x) : x);
      const run: LegendRun = { folder: folder(o.runDir), label: shortNames[k]!, color: o.color, lines: [] };
      const curves = lines.flatMap((line, i) => {
        const s = o.book.get(line.name);
        if (!s || s.length === 0) return [];
        const v = s.view(buckets, zoom ? oNative(zoom[0]) : -Infinity, zoom ? oNative(zoom[1]) : Infinity);
        const d = line.smooth === false ? v.raw : v.smooth;
        run.lines = [...run.lines, { line, dash: overlayDash(i) }];
        return [{ key: `${o.runDir}|${line.name}`, label: `${run.label}: ${line.label}`, color: o.color, dash: overlayDash(i), pts: toPoints(d.x, d.y, d.length, logY, oShown).pts }];
      });
      if (curves.length) runs.push(run);
      return curves;
    });
    let x0 = Infinity;
    let x1 = -Infinity;
    for (const pts of [...out.flatMap((d) => [d.raw, d.smooth]), ...overlaid.map((o) => o.pts)]) {
      if (pts.length) x0 = Math.min(x0, pts[0]!.x);
      if (pts.length) x1 = Math.max(x1, pts.at(-1)!.x);
    }
    const xRange: [number, number] = zoom ?? [x0, x1];
    // The y extent of everything drawn (lines, bands, overlays), for round y ticks.
    let y0 = Infinity;
    let y1 = -Infinity;
    const seeY = (y: number) => {
      if (Number.isFinite(y)) [y0, y1] = [Math.min(y0, y), Math.max(y1, y)];
    };
    for (const pts of [...out.flatMap((d) => [d.raw, d.smooth]), ...overlaid.map((o) => o.pts)]) for (const p of pts) seeY(p.y);
    for (const a of bandAreas) for (const p of a.pts) p.range.forEach(seeY);
    return { bookId: book.id, series: out, overlaid, runs, markers, points, hidden, bandAreas, xRange, yRange: [y0, y1] as [number, number] };
    // `drawTick` moves when the scheduler finds the drawn series changed (or the view switched).
  }, [dashboard, lines, dynamicLines, band, width, zoom, logY, drawTick, xKind, shownAxis]);
  // Another x axis: the zoom (in the old axis's units) no longer applies.
  useEffect(() => setZoom(undefined), [shownAxis]);

  const legend = useMemo(() => chartLegend(drawn.series.map((d) => d.line), smoothing, drawn.bandAreas.map((a) => a.band), drawn.runs), [drawn, smoothing]);
  const xTicks = useMemo(() => niceTicks(drawn.xRange[0], drawn.xRange[1], Math.max(2, Math.floor(width / PX_PER_TICK)), xInteger), [drawn.xRange, width, xInteger]);
  // Round y ticks (1, 2 or 5 x 10^k apart) covering the data: recharts' own read 0.0055 / 0.011 /
  // 0.0165 or 11 / -11 / -22. A log axis keeps recharts' powers of ten.
  const yTicks = useMemo(() => (logY ? [] : coveringTicks(drawn.yRange[0], drawn.yRange[1], Y_TICKS).ticks), [drawn.yRange, logY]);

  const [exportNote, setExportNote] = useState<string | undefined>();
  /** Downloads every raw record of the drawn series (the host reads them from the run folder). */
  const exportCsv = () => {
    const st = dashboard.store.getState();
    const runDir = st.view.kind === 'history' ? st.view.runDir : st.view.kind === 'live' ? st.runDir : undefined;
    if (!runDir) return;
    setExportNote('exporting…');
    csv(runDir, [...new Set(drawn.series.map((d) => d.line.name))]).then(
      ({ text, rows }) => {
        downloadBlob(new Blob([text], { type: 'text/csv' }), `${id.slice(6)}.csv`);
        setExportNote(`${rows} rows exported`);
      },
      (e: Error) => setExportNote(`CSV export failed: ${e.message}`),
    );
  };

  /** Downloads the chart as drawn now, with its title and legend, as SVG or as PNG (at twice the CSS pixels, for print and high-density screens). */
  const exportImage = (format: 'svg' | 'png') => {
    const svg = ref.current?.querySelector<SVGSVGElement>('svg.recharts-surface');
    if (!svg) return;
    const clone = svg.cloneNode(true) as SVGSVGElement;
    clone.removeAttribute('style');
    clone.setAttribute('width', String(svg.clientWidth));
    clone.setAttribute('height', String(svg.clientHeight));
    const image = chartImage(new XMLSerializer().serializeToString(clone), svg.clientWidth, svg.clientHeight, title, legend, theme);
    const name = `${id.slice(6)}.${format}`;
    if (format === 'svg') return downloadBlob(new Blob([image.svg], { type: 'image/svg+xml' }), name);
    svgToPng(image, 2).then(
      (png) => downloadBlob(png, name),
      (e: Error) => setExportNote(`PNG export failed: ${e.message}`),
    );
  };

  const onDown = (e: { activeLabel?: unknown; activeCoordinate?: unknown } | null) => {
    const x = Number(e?.activeLabel);
    if (Number.isFinite(x)) setDrag({ from: x });
  };
  const onMove = (e: { activeLabel?: unknown } | null) => {
    const x = Number(e?.activeLabel);
    if (drag && Number.isFinite(x)) setDrag({ ...drag, to: x });
  };
  const onUp = () => {
    if (drag?.to !== undefined && drag.to !== drag.from) setZoom([Math.min(drag.from, drag.to), Math.max(drag.from, drag.to)]);
    setDrag(undefined);
  };

  return (
    <section ref={sectionRef} className="chart" aria-labelledby={`${id}-title`} data-testid={id} data-book={drawn.bookId}>
      <div className="chart-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <span className="chart-count" data-testid={`${id}-count`}>
          {drawn.points} point{drawn.points === 1 ? '' : 's'}
        </span>
        {drawn.markers.length > 0 && (
          <span className="chart-nonfinite" title={drawn.markers.map((m) => `${m.label}: ${m.kind} at ${m.x}`).join('\n')}>
            {drawn.markers.length} non-finite
          </span>
        )}
        {drawn.hidden > 0 && <span className="chart-note">{drawn.hidden} points ≤ 0 not shown on log scale</span>}
        <label className="chart-opt">
          <input type="checkbox" checked={logY} onChange={(e) => setLogY(e.target.checked)} /> log y
        </label>
        {zoom ? (
          <button type="button" onClick={() => setZoom(undefined)} title="Reset zoom and follow the latest points">
            Follow latest
          </button>
        ) : (
          <span className="chart-note chart-follow" title="Drag across the chart to zoom">following latest</span>
        )}
        <span className="chart-export" role="group" aria-label={`Export ${title}`}>
          <button type="button" onClick={exportCsv} disabled={drawn.points === 0 || isGroup} aria-label={`Export ${title} as CSV`} title={isGroup ? "A seed group's charts are computed here: export a member's records from its own run" : 'Every raw record of these series, from the run folder'}>
            CSV
          </button>
          <button type="button" onClick={() => exportImage('svg')} disabled={drawn.points === 0} aria-label={`Export ${title} as SVG`} title="The chart as drawn, with its title and legend, as a vector image">
            SVG
          </button>
          <button type="button" onClick={() => exportImage('png')} disabled={drawn.points === 0} aria-label={`Export ${title} as PNG`} title="The chart as drawn, with its title and legend, as a PNG at twice the screen's CSS pixels">
            PNG
          </button>
        </span>
        {exportNote && <span className="chart-note" role="status">{exportNote}</span>}
      </div>
      {legend.length > 0 && (
        <ul className="chart-legend" aria-label={`${title} legend`}>
          {legend.map((e) => (
            <li key={e.key} title={e.run ? `${e.run}: ${e.series}` : e.series} data-series={e.series}>
              <Swatch entry={e} />
              {e.label}
            </li>
          ))}
        </ul>
      )}
      <div ref={ref} className="chart-body">
        {drawn.series.length === 0 && drawn.overlaid.length === 0 ? (
          <p className="chart-empty">{noRunYet ? 'No data yet: press Start, or open a past run from the run history.' : emptyText}</p>
        ) : (
          <ComposedChart width={width} height={220} margin={{ top: 8, right: plotRightMargin(xTicks.length ? tick(xTicks.at(-1)!) : undefined), bottom: 4, left: 4 }} onMouseDown={onDown} onMouseMove={onMove} onMouseUp={onUp}>
            <CartesianGrid strokeDasharray="3 3" stroke={frame.grid} />
            <XAxis dataKey="x" type="number" domain={zoom ?? ['dataMin', 'dataMax']} ticks={xTicks} interval={0} allowDataOverflow stroke={frame.axis} tick={frame.tick} tickFormatter={tick} label={{ value: xLabel, position: 'insideBottomRight', offset: -2, ...frame.label }} />
            <YAxis
              scale={logY ? 'log' : 'auto'}
              domain={yTicks.length > 1 ? [yTicks[0]!, yTicks.at(-1)!] : ['auto', 'auto']}
              {...(yTicks.length > 1 ? { ticks: yTicks, interval: 0 } : {})}
              allowDataOverflow
              stroke={frame.axis}
              tick={frame.tick}
              // The value only: recharts passes the tick's index second, which percentText read as its decimals ("0%" under "-0.2%").
              tickFormatter={(v: number) => (yFormat ?? tick)(v)}
              width={yLabel ? 72 : 64}
              label={yLabel ? { value: yLabel, angle: -90, position: 'insideLeft', offset: 4, ...frame.label, style: { textAnchor: 'middle' } } : undefined}
            />
            <Tooltip isAnimationActive={false} formatter={(v) => (yFormat && typeof v === 'number' ? yFormat(v) : tooltipValue(v))} labelFormatter={(x) => `${xLabel} ${x}`} {...TOOLTIP_STYLE} />
            {drawn.bandAreas.map(({ band: b, pts }) => (
              <Area key={`${b.lo}-band`} data={pts} dataKey="range" stroke="none" fill={ink(theme, b.color)} fillOpacity={0.2} isAnimationActive={false} name={b.label} />
            ))}
            {drawn.series.map(({ line, raw, smooth, dots }) =>
              line.smooth === false
                ? [<Line key={line.name} data={raw} dataKey="y" name={line.label} stroke={ink(theme, line.color)} strokeDasharray={line.dash} dot={dots ? { r: 3 } : false} isAnimationActive={false} strokeWidth={1.5} />]
                : [
                    <Line key={`${line.name}-raw`} data={raw} dataKey="y" name={`${line.label} (raw)`} stroke={ink(theme, line.color)} strokeOpacity={RAW_LINE_OPACITY[theme.name]} dot={false} isAnimationActive={false} strokeWidth={1} />,
                    <Line key={`${line.name}-smooth`} data={smooth} dataKey="y" name={`${line.label} (EMA)`} stroke={ink(theme, line.color)} dot={false} isAnimationActive={false} strokeWidth={1.75} />,
                  ],
            )}
            {drawn.overlaid.map((o) => (
              <Line key={o.key} data={o.pts} dataKey="y" name={o.label} stroke={ink(theme, o.color)} strokeDasharray={o.dash} dot={false} isAnimationActive={false} strokeWidth={1.5} />
            ))}
            {drawn.markers.map((m, i) => (
              <ReferenceLine key={`m${i}`} x={m.x} stroke={theme.err} strokeDasharray="2 2" label={{ value: m.kind, fill: theme.err, fontSize: 10, position: 'top' }} />
            ))}
            {drag?.to !== undefined && <ReferenceArea x1={drag.from} x2={drag.to} strokeOpacity={0.3} fill={theme.accent} fillOpacity={0.15} />}
          </ComposedChart>
        )}
      </div>
    </section>
  );
});
