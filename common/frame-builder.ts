// Live streaming of a run to the dashboard (DESIGN section 8): everything the session reports
// during one frame period is folded into one summary per series (count, x range, min and max with
// their x, mean over the finite values, last value, first non-finite value), so the frame the host
// sends every FRAME_PERIOD_MS has a size bounded by the number of series, not by the step rate.
// The raw records go to metrics.jsonl (the session) and from there to CSV export and liveHistory.
import { epochSeriesPoints, FRAME_SERIES, MAX_FRAME_EVENTS, systemSeriesPoints, toWire, type EpisodePoint, type Frame, type GpuStatus, type SeriesSummary, type SystemSample, type WireValue } from './protocol.ts';
import type { EpochSummary, RunEvent, ScalarPoint } from './run.ts';

/** Running summary of one series over a frame period. */
export class SeriesAccumulator {
  private n = 0;
  private x0 = 0;
  private x1 = 0;
  private finite = 0;
  private sum = 0;
  private min: [number, number] | undefined;
  private max: [number, number] | undefined;
  private last: WireValue = 0;
  private nonFinite: SeriesSummary['nonFinite'];

  /** Adds one record `(x, v)`; `v` may be NaN or ±Infinity. O(1). */
  add(x: number, v: number): void {
    if (this.n === 0) this.x0 = x;
    this.n++;
    this.x1 = x;
    this.last = toWire(v);
    if (!Number.isFinite(v)) {
      this.nonFinite ??= { x, value: toWire(v) as 'NaN' | 'Infinity' | '-Infinity' };
      return;
    }
    this.finite++;
    this.sum += v;
    if (!this.min || v < this.min[1]) this.min = [x, v];
    if (!this.max || v > this.max[1]) this.max = [x, v];
  }

  get count(): number {
    return this.n;
  }

  /** The summary of what was added (undefined when nothing was). */
  summary(): SeriesSummary | undefined {
    if (this.n === 0) return undefined;
    const s: SeriesSummary = { x0: this.x0, x1: this.x1, n: this.n, last: this.last };
    if (this.min) s.min = this.min;
    if (this.max) s.max = this.max;
    if (this.finite) s.mean = this.sum / this.finite;
    if (this.nonFinite) s.nonFinite = this.nonFinite;
    return s;
  }
}

/** The counters a frame reports at its end. */
type Progress = NonNullable<Frame['progress']>;

/**
 * Collects one frame period of a live run and hands out the frame. Every `add*` is O(values
 * added); `take()` is O(number of series). Events beyond MAX_FRAME_EVENTS are counted, keeping
 * every halt, fallback, stop and error first and the routine ones (checkpoints, warnings) after.
 */
export class FrameBuilder {
  private series = new Map<string, SeriesAccumulator>();
  private stepFrom: number | undefined;
  private stepTo: number | undefined;
  private progress: Progress | undefined;
  private epochsEnded = 0;
  private lastEpoch: EpochSummary | undefined;
  private events: RunEvent[] = [];
  private eventsOmitted = 0;
  private gpu: GpuStatus | undefined;
  private envStepsAt: Frame['envStepsAt'];
  private seq = 0;

  /** @param runDir the live run's folder, copied into every frame. */
  constructor(public runDir = '') {}

  private put(name: string, x: number, v: number): void {
    let acc = this.series.get(name);
    if (!acc) this.series.set(name, (acc = new SeriesAccumulator()));
    acc.add(x, v);
  }

  /** Reads of the scalar block: each value goes to the series of its name at x = step. */
  addScalars(points: readonly ScalarPoint[]): void {
    for (const p of points) {
      this.stepFrom ??= p.step;
      this.stepTo = p.step;
      this.progress = { step: p.step, env_steps: this.progress?.env_steps ?? 0, epoch: this.progress?.epoch ?? 0, wall_s: p.wall_s };
      for (const name in p.values) {
        const v = p.values[name]!;
        this.put(name, p.step, typeof v === 'number' ? v : Number(v));
      }
    }
  }

  /** Finished training episodes: returns at x = the env step each ended at. */
  addEpisodes(episodes: readonly EpisodePoint[]): void {
    for (const e of episodes) this.put(FRAME_SERIES.episodicReturn, e.step, e.value);
  }

  /** An epoch ended: its time and rate at x = epoch, its evaluation at x = env steps. */
  addEpoch(e: EpochSummary): void {
    this.epochsEnded++;
    this.lastEpoch = e;
    for (const [name, x, v] of epochSeriesPoints(e)) this.put(name, x, v);
    const p = this.progress;
    this.progress = { step: Math.max(p?.step ?? 0, e.step), env_steps: e.env_steps, epoch: e.epoch, wall_s: p?.wall_s ?? 0 };
  }

  /** A system sample (SYSTEM_SERIES, at x = its step); the frame carries the GPU status and the step and env steps of the last one. */
  addSystem(sample: SystemSample): void {
    for (const [name, v] of systemSeriesPoints(sample)) this.put(name, sample.step, v);
    this.gpu = { available: sample.gpu.available, reason: sample.gpu.reason };
    this.envStepsAt = { step: sample.step, env_steps: sample.env_steps };
  }

  /** An event of the run's log (kept up to MAX_FRAME_EVENTS per frame, see the class comment). */
  addEvent(e: RunEvent): void {
    const routine = (k: RunEvent['kind']) => k === 'checkpoint' || k === 'warning';
    if (this.events.length < MAX_FRAME_EVENTS) {
      this.events.push(e);
      return;
    }
    this.eventsOmitted++;
    if (routine(e.kind)) return;
    // An important event replaces the newest routine one (there is one: otherwise it is dropped).
    for (let i = this.events.length - 1; i >= 0; i--)
      if (routine(this.events[i]!.kind)) {
        this.events.splice(i, 1);
        this.events.push(e);
        return;
      }
  }

  /** True when nothing was added since the last take(). */
  get empty(): boolean {
    return this.series.size === 0 && this.events.length === 0 && this.eventsOmitted === 0 && this.epochsEnded === 0;
  }

  /** The frame of what was added since the last call (undefined when nothing was), and a fresh period. */
  take(): Frame | undefined {
    if (this.empty) return undefined;
    const series: Frame['series'] = {};
    for (const [name, acc] of this.series) series[name] = acc.summary()!;
    const f: Frame = { type: 'frame', runDir: this.runDir, seq: ++this.seq, series, epochsEnded: this.epochsEnded, events: this.events, eventsOmitted: this.eventsOmitted };
    if (this.stepFrom !== undefined) f.steps = { from: this.stepFrom, to: this.stepTo! };
    if (this.progress) f.progress = this.progress;
    if (this.lastEpoch) f.lastEpoch = this.lastEpoch;
    if (this.gpu) f.gpu = this.gpu;
    if (this.envStepsAt) f.envStepsAt = this.envStepsAt;
    this.series = new Map();
    this.stepFrom = this.stepTo = undefined;
    this.epochsEnded = 0;
    this.lastEpoch = undefined;
    this.events = [];
    this.eventsOmitted = 0;
    this.gpu = undefined;
    this.envStepsAt = undefined;
    return f;
  }
}
