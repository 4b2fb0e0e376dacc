// The dashboard's two themes as one set of tokens each: styles.css reads them as CSS custom
// properties (--bg, --panel, ...; set on the page root by theme-store.ts), and the charts read
// them here, because an SVG exported from a chart must carry literal colours. Chart colours
// (palette.ts) are designed on the dark theme; `ink` keeps their hue and makes them stand out on
// the theme's panel (WCAG 3:1, the minimum for lines).
import { legibleOn } from './color.ts';

export type ThemeName = 'dark' | 'light';

export interface Theme {
  name: ThemeName;
  /** Page background, panel and chart background, borders and grid lines. */
  bg: string;
  panel: string;
  line: string;
  /** Text, secondary text (axis ticks, notes), links and focus. */
  text: string;
  muted: string;
  accent: string;
  /** Text colours of warnings, errors and good news. */
  warn: string;
  err: string;
  ok: string;
  /** Backgrounds of buttons, the primary button, inputs and the run-state badge. */
  button: string;
  primary: string;
  input: string;
  badge: string;
  /** Backgrounds of the run-state badge while running, stopping or halted. */
  running: string;
  stopping: string;
  halted: string;
  /** Backgrounds of warning and error banners. */
  bannerWarn: string;
  bannerError: string;
}

/** The two themes' tokens (every text colour meets WCAG AA on the backgrounds it is used on: theme.test.ts). */
export const THEMES: Record<ThemeName, Theme> = {
  dark: {
    name: 'dark', bg: '#12151c', panel: '#1a1f29', line: '#2a3140', text: '#e3e6eb', muted: '#8b93a3', accent: '#8ab4f8', warn: '#fdd663', err: '#ff5370', ok: '#81c995',
    button: '#252c3a', primary: '#1f4f8f', input: '#10131a', badge: '#2a3140', running: '#1e4620', stopping: '#4a3b10', halted: '#5c1a24', bannerWarn: '#3d3413', bannerError: '#3d1820',
  },
  light: {
    name: 'light', bg: '#f3f4f7', panel: '#ffffff', line: '#d3d8e0', text: '#1d2129', muted: '#5b6372', accent: '#1a56b8', warn: '#8a5a00', err: '#c62828', ok: '#1e7a34',
    button: '#eceff4', primary: '#d2e3fc', input: '#ffffff', badge: '#e3e7ee', running: '#cdebd4', stopping: '#f7e7b4', halted: '#f8d0d5', bannerWarn: '#fff3c9', bannerError: '#fde1e4',
  },
};

/** The CSS custom properties of a theme: `--bg`, `--panel`, ..., `--banner-error` (camelCase names in kebab case). */
export function themeProperties(theme: Theme): [string, string][] {
  return Object.entries(theme)
    .filter(([k]) => k !== 'name')
    .map(([k, v]) => [`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, v]);
}

/**
 * Opacity of a chart's raw (unsmoothed) line under its smoothed curve: faint, and on the light
 * panel as visible as on the dark one (mean contrast over the chart colours; theme.test.ts). At the
 * dark theme's 0.25 the light theme's raw lines were nearly invisible (1.27-1.41:1 on white).
 */
export const RAW_LINE_OPACITY: Record<ThemeName, number> = { dark: 0.25, light: 0.5 };

/** Opacity of a raw line's legend swatch (a short 1-px stroke reads fainter than a long line: a little more). */
export function rawSwatchOpacity(theme: Theme): number {
  return Math.min(1, RAW_LINE_OPACITY[theme.name] + 0.1);
}

const inked = new Map<string, string>();

/** `color` (a chart colour, #rrggbb) as drawn on `theme`'s panels: its hue, with at least 3:1 contrast. */
export function ink(theme: Theme, color: string): string {
  const key = `${theme.panel}${color}`;
  let out = inked.get(key);
  if (out === undefined) inked.set(key, (out = legibleOn(color, theme.panel)));
  return out;
}
