// What every recharts chart of the dashboard shares of its look: the tooltip drawn on the theme's
// panel with the theme's text (recharts' default is a white box whose label inherits the page's
// text colour: light grey on white on the dark theme), and axes, grid and labels in the theme's
// colours. The tooltip uses the page's CSS custom properties (it is HTML, restyled on a theme
// switch by the cascade); the SVG parts take literal colours, so an exported chart keeps them.
import type { CSSProperties } from 'react';
import type { Theme } from './theme.ts';

/** Props of recharts' <Tooltip> that draw it on the theme's panel. */
export const TOOLTIP_STYLE: { contentStyle: CSSProperties; labelStyle: CSSProperties; wrapperStyle: CSSProperties } = {
  contentStyle: { background: 'var(--panel)', border: '1px solid var(--line)', borderRadius: 4, color: 'var(--text)', fontSize: 12, padding: '4px 8px' },
  labelStyle: { color: 'var(--text)', fontWeight: 600, marginBottom: 2 },
  wrapperStyle: { zIndex: 3 },
};

/** SVG colours of a chart's frame on `theme`: grid lines, axis lines, tick text and axis labels. */
export function chartFrame(theme: Theme) {
  return {
    grid: theme.line,
    axis: theme.muted,
    tick: { fontSize: 11, fill: theme.muted },
    label: { fontSize: 11, fill: theme.muted },
  };
}
