// When charts redraw (DESIGN section 8, issue 16): at most once per animation frame, only the
// charts that are visible and whose data changed, and only a few charts per animation frame, in
// turn, so one frame of data never becomes one long task that freezes the page (a chart's
// redraw is a React render of a recharts tree: milliseconds each on a busy 2-core machine). A
// hidden tab gets no animation frames, so it redraws nothing until it is shown again.

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
  /** Redraws asked for so far (for the benchmark and tests). */
  redraws = 0;

  /**
   * @param requestFrame requestAnimationFrame in the page.
   * @param perFrame most charts redrawn in one animation frame (>= 1); the rest wait their turn.
   */
  constructor(
    private readonly requestFrame: FrameRequest,
    private readonly perFrame = 1,
  ) {
    if (!(perFrame >= 1)) throw new RangeError(`perFrame must be at least 1, got ${perFrame}`);
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
