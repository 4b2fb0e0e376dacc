// How the dashboard writes a duration in seconds (the header's ETA, the run history's wall time).

/**
 * Seconds as "42 s", "3 min 5 s" or "2 h 4 min"; "–" when missing, negative or not finite. The
 * total is rounded to the shown unit (seconds, or minutes in the hour form) before it is split,
 * so no part ever reads 60 (119.6 s is "2 min 0 s", not "1 min 60 s").
 */
export function durationText(s: number | undefined): string {
  if (s === undefined || !Number.isFinite(s) || s < 0) return '–';
  const secs = Math.round(s);
  if (secs < 60) return `${secs} s`;
  if (secs < 3600) return `${Math.floor(secs / 60)} min ${secs % 60} s`;
  const mins = Math.round(s / 60);
  return `${Math.floor(mins / 60)} h ${mins % 60} min`;
}
