// The React side of the RedrawScheduler (lib/redraw.ts) for one chart: whether the chart is on
// screen, when its data changed, and how long its redraws take (its share of the main thread).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { RedrawScheduler } from './redraw.ts';

/** Whether the element is in the viewport (IntersectionObserver); calls `onShow` when it comes in. */
function useVisible(ref: React.RefObject<HTMLElement | null>, onShow: () => void): React.RefObject<boolean> {
  const visible = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => {
      const now = entries.some((e) => e.isIntersecting);
      if (now && !visible.current) onShow();
      visible.current = now;
    });
    io.observe(el);
    return () => io.disconnect();
  }, [ref, onShow]);
  return visible;
}

/**
 * Registers a chart with `scheduler`: it is redrawn (its returned `tick` moves) at most once per
 * animation frame, only while its element (`ref`) is on screen and `changed()` says its data
 * changed; the time from that render to its commit is reported to the scheduler. `changed`
 * should be stable (useCallback): a new one registers the chart again.
 * @returns `ref` for the chart's outer element and `tick`, a dependency for what the chart draws.
 */
export function useScheduledRedraw(scheduler: RedrawScheduler, changed: () => boolean): { ref: React.RefObject<HTMLElement | null>; tick: number } {
  const [tick, setTick] = useState(0);
  const ref = useRef<HTMLElement | null>(null);
  const invalidate = useMemo(() => () => scheduler.invalidate(), [scheduler]);
  const visible = useVisible(ref, invalidate);
  useEffect(() => scheduler.register({ visible: () => visible.current, changed, redraw: () => setTick((t) => t + 1) }), [scheduler, changed, visible]);
  // A scheduled redraw is timed from this render to its commit (the scheduler's share of the main thread).
  const renderStart = useRef<number | undefined>(undefined);
  const timedTick = useRef(tick);
  if (timedTick.current !== tick) {
    timedTick.current = tick;
    renderStart.current = performance.now();
  }
  useLayoutEffect(() => {
    if (renderStart.current === undefined) return;
    scheduler.rendered(performance.now() - renderStart.current);
    renderStart.current = undefined;
  });
  return { ref, tick };
}
