// A small measuring hook on the page for the dashboard benchmark (bench/dashboard-page.ts) and the
// browser tests: `window.dqnProbe.ping()` times a round trip to the trainer host through the same
// transport and message queue as the live frames; `stats()` reports the stream's frame counters,
// the page's animation frames and long tasks since `start()`, and its JS heap; `shownBook()` which
// series book the charts should be drawing (browser tests compare it with a chart's), and
// `seriesRange(name)` the range of one of its series (what a chart's y axis must cover). It reads nothing
// the page does not already hold and sends only `ping`.
import type { Dashboard } from './store.ts';
import type { Transport } from './transport/transport.ts';

/** What `stats()` returns. */
export interface ProbeStats {
  /** Live frames applied, and frames lost (gaps in their seq). */
  frames: number;
  framesLost: number;
  /** Animation frames seen since start() and the ms they spanned (60 per s when the page keeps up). */
  animationFrames: number;
  sinceStartMs: number;
  /** Tasks over 50 ms since start() (PerformanceObserver 'longtask'), and their total ms. */
  longTasks: number;
  longTaskMs: number;
  /** performance.memory.usedJSHeapSize (Chromium), bytes; absent elsewhere. */
  jsHeapBytes?: number;
  /** Bytes of the live series' typed arrays. */
  seriesBytes: number;
}

export interface Probe {
  /** Sends `ping` and resolves with the ms until its `pong` was handled. @throws Error when not connected. */
  ping(): Promise<number>;
  /** Starts counting animation frames and long tasks (idempotent). */
  start(): void;
  stats(): ProbeStats;
  /**
   * The id of the series book the charts show now (live or a past run). A chart's section carries
   * the id of the book it last drew as `data-book`: an off-screen chart is not redrawn, so its
   * point count is current only where the two agree.
   */
  shownBook(): number;
  /** Least and greatest finite value of the series `name` in the book shown now (what its chart's y axis must cover), or undefined without one. */
  seriesRange(name: string): [number, number] | undefined;
}

/** Creates the probe (install it as `window.dqnProbe`). */
export function createProbe(transport: Transport, dashboard: Dashboard): Probe {
  let nextId = 1;
  const waiting = new Map<number, () => void>();
  transport.subscribe((m) => {
    if (m.type !== 'pong') return;
    waiting.get(m.id)?.();
    waiting.delete(m.id);
  });
  let started = 0;
  let animationFrames = 0;
  let longTasks = 0;
  let longTaskMs = 0;
  return {
    ping: () =>
      new Promise<number>((resolve, reject) => {
        const id = nextId++;
        const t0 = performance.now();
        waiting.set(id, () => resolve(performance.now() - t0));
        try {
          transport.send({ type: 'ping', id });
        } catch (e) {
          waiting.delete(id);
          reject(e as Error);
        }
      }),
    start() {
      if (started) return;
      started = performance.now();
      const count = () => {
        animationFrames++;
        requestAnimationFrame(count);
      };
      requestAnimationFrame(count);
      try {
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) {
            longTasks++;
            longTaskMs += e.duration;
          }
        }).observe({ type: 'longtask', buffered: false });
      } catch {
        /* no long-task timing in this browser: the counts stay 0 */
      }
    },
    stats: () => ({
      frames: dashboard.stream.frames,
      framesLost: dashboard.stream.lost,
      animationFrames,
      sinceStartMs: started ? performance.now() - started : 0,
      longTasks,
      longTaskMs,
      jsHeapBytes: (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize,
      seriesBytes: dashboard.live.bytes,
    }),
    shownBook: () => dashboard.shown().id,
    seriesRange: (name) => {
      const s = dashboard.shown().get(name);
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = 0; i < (s?.length ?? 0); i++) {
        const y = s!.y[i]!;
        if (Number.isFinite(y)) [lo, hi] = [Math.min(lo, y), Math.max(hi, y)];
      }
      return lo <= hi ? [lo, hi] : undefined;
    },
  };
}
