// Colour arithmetic for the charts: how far apart two colours look (CIE76 ΔE in CIELAB, where
// about 2.3 is a just-noticeable difference and 20+ reads as another colour), the WCAG 2.1
// contrast ratio between two colours, and a colour moved in lightness until it stands out on a
// background. Colours are "#rrggbb" strings.

/** [r, g, b] in [0, 1] of "#rrggbb". */
function channels(hex: string): [number, number, number] {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!m) throw new Error(`expected a colour as #rrggbb, got ${JSON.stringify(hex)}`);
  const n = parseInt(m[1]!, 16);
  return [(n >> 16) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
}

/** sRGB companding undone (IEC 61966-2-1). */
const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** WCAG 2.1 relative luminance of a colour, in [0, 1]. */
export function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map(linear) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.1 contrast ratio of two colours, in [1, 21] (3 is the minimum for lines and large text, 4.5 for text). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The colour a line of `color` at `alpha` opacity shows over `background` (sRGB compositing, as browsers do). */
export function over(color: string, alpha: number, background: string): string {
  const [c, b] = [channels(color), channels(background)];
  return `#${c.map((v, i) => Math.round(255 * (alpha * v + (1 - alpha) * b[i]!)).toString(16).padStart(2, '0')).join('')}`;
}

/** CIELAB (D65) of a colour. */
function lab(hex: string): [number, number, number] {
  const [r, g, b] = channels(hex).map(linear) as [number, number, number];
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const fx = f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
  const fy = f(0.2126 * r + 0.7152 * g + 0.0722 * b);
  const fz = f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** CIE76 colour difference of two colours (Euclidean distance in CIELAB). */
export function deltaE(a: string, b: string): number {
  const [l1, a1, b1] = lab(a);
  const [l2, a2, b2] = lab(b);
  return Math.hypot(l1 - l2, a1 - a2, b1 - b2);
}

/** "#rrggbb" of [r, g, b] in [0, 1]. */
function toHex(rgb: readonly number[]): string {
  return `#${rgb.map((c) => Math.round(Math.min(1, Math.max(0, c)) * 255).toString(16).padStart(2, '0')).join('')}`;
}

/** A colour of hue `h` (degrees), saturation `s` and lightness `l` (both in [0, 1]). */
export function hsl(h: number, s: number, l: number): string {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  return toHex([0, 8, 4].map((n) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
}

/**
 * `color` mixed step by step toward black (on a light background) or white (on a dark one)
 * until its contrast with `background` reaches `min` (WCAG: 3 for chart lines); unchanged when it
 * already does. Keeps the hue, so a series keeps its identity across themes.
 */
export function legibleOn(color: string, background: string, min = 3): string {
  const toward = luminance(background) > 0.18 ? 0 : 1;
  const rgb = channels(color);
  let out = color;
  for (let t = 0; t <= 1 && contrast(out, background) < min; t += 0.05) out = toHex(rgb.map((c) => c + (toward - c) * t));
  return out;
}
