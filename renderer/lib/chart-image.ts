// A chart as an image file: the chart's SVG (as recharts drew it, literal colours) under its
// title and legend on the theme's panel colour, as one standalone SVG document; and that document
// rasterised to PNG through a canvas at a chosen pixel ratio.
import type { LegendEntry } from './legend.ts';
import { ink, rawSwatchOpacity, type Theme } from './theme.ts';

/** Heights (px) of the title row and of one legend row above the chart; width per character of legend text (11 px system font, generous). */
const TITLE_H = 24;
const LEGEND_ROW_H = 16;
const CHAR_W = 6.5;
const SWATCH_W = 22;
const GAP = 14;
const PAD = 8;

/** `s` with the five XML special characters escaped (text and attribute values). */
export function xmlEscape(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

/** How many swatches an entry shows: its own (none for a `key` entry) and the overlaid runs' dash. */
const swatchCount = (e: Pick<LegendEntry, 'kind' | 'overlayDash'>) => (e.kind === 'key' ? 0 : 1) + (e.overlayDash ? 1 : 0);

/** Legend entries laid out in rows that fit `width`: each with its x and row index. */
export function legendLayout(entries: readonly Pick<LegendEntry, 'label' | 'kind' | 'overlayDash'>[], width: number): { x: number; row: number }[] {
  const out: { x: number; row: number }[] = [];
  let x = PAD;
  let row = 0;
  for (const e of entries) {
    const w = swatchCount(e) * SWATCH_W + e.label.length * CHAR_W + GAP;
    if (x > PAD && x + w > width - PAD) {
      row++;
      x = PAD;
    }
    out.push({ x, row });
    x += w;
  }
  return out;
}

export interface ChartImage {
  /** The SVG document's text. */
  svg: string;
  width: number;
  height: number;
}

/**
 * A standalone SVG document of a chart: `title` and the legend (swatches drawn as in the page)
 * over the chart's own SVG markup `chartSvg` (an <svg> element of `width` x `height` as
 * serialised from the page), on `theme`'s panel colour.
 */
export function chartImage(chartSvg: string, width: number, height: number, title: string, legend: readonly LegendEntry[], theme: Theme): ChartImage {
  const places = legendLayout(legend, width);
  const rows = legend.length ? places.at(-1)!.row + 1 : 0;
  const top = TITLE_H + rows * LEGEND_ROW_H + (rows ? 4 : 0);
  const items = legend.map((e, i) => {
    const { x, row } = places[i]!;
    const y = TITLE_H + row * LEGEND_ROW_H + LEGEND_ROW_H / 2;
    const c = ink(theme, e.color);
    const swatch =
      e.kind === 'key'
        ? ''
        : e.kind === 'band' || e.kind === 'run'
          ? `<rect x="${x}" y="${y - 4}" width="18" height="8"${e.kind === 'run' ? ' rx="2"' : ' fill-opacity="0.3"'} fill="${c}"/>`
          : `<line x1="${x}" y1="${y}" x2="${x + 18}" y2="${y}" stroke="${c}" stroke-width="${e.kind === 'raw' ? 1 : 2}" stroke-opacity="${e.kind === 'raw' ? rawSwatchOpacity(theme) : 1}"${e.dash ? ` stroke-dasharray="${xmlEscape(e.dash)}"` : ''}/>` +
            (e.kind === 'dots' ? `<circle cx="${x + 9}" cy="${y}" r="3" fill="${c}"/>` : '');
    const dx = e.kind === 'key' ? 0 : SWATCH_W;
    const dash = e.overlayDash ? `<line x1="${x + dx}" y1="${y}" x2="${x + dx + 18}" y2="${y}" stroke="${theme.muted}" stroke-width="2" stroke-dasharray="${xmlEscape(e.overlayDash)}"/>` : '';
    return `${swatch}${dash}<text x="${x + swatchCount(e) * SWATCH_W}" y="${y + 4}" font-size="11" fill="${theme.text}">${xmlEscape(e.label)}</text>`;
  });
  const h = top + height;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">` +
    `<rect width="100%" height="100%" fill="${theme.panel}"/>` +
    `<text x="${PAD}" y="17" font-size="14" font-weight="600" fill="${theme.text}">${xmlEscape(title)}</text>` +
    items.join('') +
    `<g transform="translate(0 ${top})">${chartSvg}</g></svg>`;
  return { svg, width, height: h };
}

/** The PNG of an SVG document `image`, drawn at `pixelRatio` device pixels per CSS pixel (browser only: an <img> and a <canvas>). */
export async function svgToPng(image: ChartImage, pixelRatio: number): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([image.svg], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(image.width * pixelRatio);
    canvas.height = Math.round(image.height * pixelRatio);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('this browser gives no 2D canvas to draw the PNG on');
    ctx.scale(pixelRatio, pixelRatio);
    ctx.drawImage(img, 0, 0, image.width, image.height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas could not be encoded as PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
