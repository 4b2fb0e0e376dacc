// The chart colours, in two sets that must not be confused: SERIES_COLORS name what a chart
// draws for the run it shows (TD loss, Q mean, beta, ...), RUN_COLORS tell overlaid past runs
// apart. Every run colour is at least MIN_RUN_DELTA_E (CIE76) from every series and feature colour and from
// the other run colours, so an overlaid run never looks like a series of the shown one; RunPalette
// hands them out to every run drawn over the charts (overlays and seed-group members alike).
import { deltaE, hsl } from './color.ts';

/** Colours of the charts' series (designed for the dark theme; theme.ts makes them legible on the light one). */
export const SERIES_COLORS = {
  amber: '#f4b400',
  orange: '#ff7043',
  blue: '#8ab4f8',
  violet: '#c58af9',
  green: '#81c995',
  coral: '#f28b82',
  yellow: '#fdd663',
  teal: '#5bb9c2',
  leaf: '#76b900',
  grey: '#9aa0a6',
} as const;

/** Hue step of generated colours (the golden angle: successive hues stay far apart). */
const GOLDEN_ANGLE = 137.508;

/** Colours of the lines of a chart with one line per input feature (causal sensitivity), in feature order. */
export const FEATURE_COLORS = ['#5bb9c2', '#e8a87c', '#c3a6ff', '#f28b82', '#fdd663', '#a7c7e7', '#b5e48c', '#ffb4e1'] as const;

/** Colour of feature i: FEATURE_COLORS, then hues spaced by the golden angle (no two lines share one). */
export function featureColor(i: number): string {
  return FEATURE_COLORS[i] ?? hsl((i * GOLDEN_ANGLE) % 360, 0.6, 0.65);
}

/** Colours of overlaid runs, in the order runs are picked. */
export const RUN_COLORS = ['#ff4081', '#00e5ff', '#eeff41', '#e040fb', '#1de9b6', '#7c4dff'] as const;

/** Least CIE76 distance of a run colour from any series colour and from the other runs' colours. */
export const MIN_RUN_DELTA_E = 20;

/**
 * The colour of the next overlaid run, given the colours of the runs overlaid now: the first
 * RUN_COLORS entry not in use, then generated hues (golden-angle steps at two lightnesses) that
 * keep MIN_RUN_DELTA_E from the series and feature colours and every colour in use. When no candidate keeps
 * that distance (dozens of runs), the candidate farthest from all of them; never one in use.
 */
export function pickRunColor(used: readonly string[]): string {
  const free = RUN_COLORS.find((c) => !used.includes(c));
  if (free) return free;
  const taken = [...Object.values(SERIES_COLORS), ...FEATURE_COLORS, ...used];
  let best = { color: '', distance: -1 };
  for (let i = 0; i < 360; i++) {
    const color = hsl((i * GOLDEN_ANGLE) % 360, 0.9, i % 2 ? 0.45 : 0.7);
    if (used.includes(color)) continue;
    const distance = Math.min(...taken.map((t) => deltaE(color, t)));
    if (distance >= MIN_RUN_DELTA_E) return color;
    if (distance > best.distance) best = { color, distance };
  }
  return best.color;
}

/**
 * The one allocator of run colours on the charts: every run drawn over them (an overlaid past run
 * and a member of the opened seed group drawn on demand alike) takes its colour here under a key,
 * so no two of them share one, whichever came first; a key keeps its colour until released.
 */
export class RunPalette {
  private readonly held = new Map<string, string>();

  /** The colour held by `key`, or the next free one (pickRunColor over every colour held now). */
  take(key: string): string {
    let color = this.held.get(key);
    if (color === undefined) {
      color = pickRunColor([...this.held.values()]);
      this.held.set(key, color);
    }
    return color;
  }

  /** Frees the colours of `keys`. */
  release(...keys: string[]): void {
    for (const k of keys) this.held.delete(k);
  }
}
