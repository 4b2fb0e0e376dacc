// When charts redraw (DESIGN section 8, issue 16): at most once per animation frame, only the
// charts that are visible and whose data changed, and only a few charts per animation frame, in
// turn, so one frame of data never becomes one long task that freezes the page (a chart's
// redraw is a React render of a recharts tree: milliseconds each on a busy 2-core machine). A
// hidden tab gets no animation frames, so it redraws nothing until it is shown again. And chart
// rendering gets at most a share of the page's main thread: after a redraw that took d ms, the
// next waits d * (1 / share - 1) ms, so a slow (or busy) machine redraws less often instead of
// freezing, while a fast one redraws on every animation frame.

/** A chart as the scheduler sees it. */
export interface Redrawable {
  /** Whether any part of it is on screen. */
  visible(): boolean;
  /** Whether the data it draws changed since its last redraw. */
  changed(): boolean;
  /** Asks it to redraw (a React state update: the render itself follows in its own task). */
  redraw(): void;
}

/** requestAnimationFrame, or a test's stand-in. */
export type FrameRequest = (callback: () => void) => unknown;

/** Schedules chart redraws; see the file comment. */
export class RedrawScheduler {
  private readonly charts: Redrawable[] = [];
  private cursor = 0;
  private pending = false;
  /** No redraw before this time (ms, `now`'s clock): the pause that keeps rendering within its share. */
  private quietUntil = -Infinity;
  /** Redraws asked for so far (for the benchmark and tests). */
  redraws = 0;

  /**
   * @param requestFrame requestAnimationFrame in the page.
   * @param perFrame most charts redrawn in one animation frame (>= 1); the rest wait their turn.
   * @param share largest share of the main thread chart renders may take, in (0, 1].
   * @param now the clock, ms (performance.now in the page).
   */
  constructor(
    private readonly requestFrame: FrameRequest,
    private readonly perFrame = 1,
    private readonly share = 0.25,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(perFrame >= 1)) throw new RangeError(`perFrame must be at least 1, got ${perFrame}`);
    if (!(share > 0 && share <= 1)) throw new RangeError(`share must be in (0, 1], got ${share}`);
  }

  /** A chart reports that its redraw took `ms` (render and commit): the next one waits accordingly. */
  rendered(ms: number): void {
    if (!(ms >= 0)) return;
    this.quietUntil = Math.max(this.quietUntil, this.now() + ms * (1 / this.share - 1));
  }

  /** Adds a chart; returns the function that removes it. */
  register(chart: Redrawable): () => void {
    this.charts.push(chart);
    this.invalidate();
    return () => {
      const i = this.charts.indexOf(chart);
      if (i >= 0) this.charts.splice(i, 1);
      if (this.cursor > i) this.cursor--;
    };
  }

  /** Data may have changed (a frame arrived, the view switched, a chart came into view): look at the next animation frame. */
  invalidate(): void {
    if (this.pending) return;
    this.pending = true;
    this.requestFrame(() => this.onFrame());
  }

  private onFrame(): void {
    this.pending = false;
    if (this.now() < this.quietUntil) {
      this.invalidate(); // look again at a later animation frame
      return;
    }
    const n = this.charts.length;
    let done = 0;
    let more = false;
    // Round robin from where the last frame stopped, so every chart gets its turn.
    const start = this.cursor;
    for (let k = 0; k < n; k++) {
      const i = (start + k) % n;
      const c = this.charts[i]!;
      if (!c.visible() || !c.changed()) continue;
      if (done === this.perFrame) {
        more = true;
        this.cursor = i;
        break;
      }
      c.redraw();
      this.redraws++;
      done++;
      this.cursor = (i + 1) % n;
    }
    if (more) this.invalidate();
  }
}
