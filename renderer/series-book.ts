// A run's series as the charts draw them: one SeriesBook per run (live, opened, overlaid, a
// seed group's member or mean), filled from a runData or liveHistory message's records or from
// live frames' summaries. Apart from store.ts so that group-view.ts can build books without
// importing the store (which imports it).
import type { RunConfig } from '../common/config.ts';
import { epochSeriesPoints, FRAME_SERIES, fromWire, systemSeriesPoints, type Frame, type HostMessage, type SeriesSummary, type SystemSample } from '../common/protocol.ts';
import type { EpochSummary, ScalarPoint } from '../common/run.ts';
import { AxisMap } from './lib/axis-map.ts';
import { DEFAULT_SMOOTHING } from './lib/ema.ts';
import { DEFAULT_MAX_POINTS, Series } from './lib/series.ts';

/**
 * The raw points that stand for a frame's summary of one series, x ascending: the minimum, the
 * maximum and the last value (each once), and the first non-finite value as its marker.
 */
export function summaryPoints(s: SeriesSummary): [number, number][] {
  const pts: [number, number][] = [];
  const add = (x: number, y: number) => {
    if (!pts.some(([px, py]) => px === x && Object.is(py, y))) pts.push([x, y]);
  };
  if (s.min) add(s.min[0], s.min[1]);
  if (s.max) add(s.max[0], s.max[1]);
  if (s.nonFinite) add(s.nonFinite.x, fromWire(s.nonFinite.value));
  add(s.x1, fromWire(s.last));
  return pts.sort((a, b) => a[0] - b[0]);
}

let nextBookId = 1;

/** The series of a run's records (a runData or liveHistory message, or a group member's). */
export function recordsBook(m: Pick<Extract<HostMessage, { type: 'runData' }>, 'scalars' | 'episodes' | 'epochs' | 'system'>, smoothing: number, maxPoints: number): SeriesBook {
  const book = new SeriesBook(smoothing, maxPoints);
  book.addScalars(m.scalars);
  book.addEpisodes(m.episodes);
  // System samples first: they are the denser (step, env steps) samples; the axis keeps samples in step order.
  book.addSystem(m.system ?? []);
  book.addEpochs(m.epochs);
  return book;
}

/** All series of one run, by name. */
export class SeriesBook {
  readonly series = new Map<string, Series>();
  /** Tells books apart (a chart redraws when the book it shows is another one). */
  readonly id = nextBookId++;
  /** The run's step <-> env step <-> wall time samples, for the charts' x-axis choice. */
  readonly axis = new AxisMap();
  constructor(
    private smoothing = DEFAULT_SMOOTHING,
    private readonly maxPoints = DEFAULT_MAX_POINTS,
  ) {}

  get(name: string): Series | undefined {
    return this.series.get(name);
  }

  /** Appends (x, y), creating the series on first use. */
  push(name: string, x: number, y: number): void {
    let s = this.series.get(name);
    if (!s) {
      s = new Series(this.maxPoints, this.smoothing);
      this.series.set(name, s);
    }
    s.push(x, y);
  }

  addScalars(points: readonly ScalarPoint[]): void {
    for (const p of points) {
      this.axis.addWall(p.step, p.wall_s);
      for (const [name, v] of Object.entries(p.values)) this.push(name, p.step, fromWire(v));
    }
  }
  addEpisodes(episodes: readonly { step: number; value: number }[]): void {
    for (const e of episodes) this.push(FRAME_SERIES.episodicReturn, e.step, e.value);
  }
  addEpochs(epochs: readonly EpochSummary[]): void {
    for (const e of epochs) {
      this.axis.addEnv(e.step, e.env_steps);
      for (const [name, x, y] of epochSeriesPoints(e)) this.push(name, x, y);
    }
  }
  /** A run's system samples (runData): the same SYSTEM_SERIES a live frame fills, x = step; each is a (step, env steps) sample of the axis. */
  addSystem(samples: readonly SystemSample[]): void {
    for (const s of samples) {
      this.axis.addEnv(s.step, s.env_steps);
      for (const [name, y] of systemSeriesPoints(s)) this.push(name, s.step, y);
    }
  }
  /** Appends a frame's summaries (see summaryPoints), creating series on first use. */
  addSummaries(summaries: Frame['series']): void {
    for (const name in summaries) {
      const sum = summaries[name]!;
      let s = this.series.get(name);
      if (!s) {
        s = new Series(this.maxPoints, this.smoothing);
        this.series.set(name, s);
      }
      s.pushSummary(summaryPoints(sum), sum.mean);
    }
  }

  setSmoothing(weight: number): void {
    this.smoothing = weight;
    for (const s of this.series.values()) s.setSmoothing(weight);
  }

  /** Names of series whose name starts with `prefix`, in the order they first appeared (the order the host sends them). */
  names(prefix: string): string[] {
    return [...this.series.keys()].filter((n) => n.startsWith(prefix));
  }

  /** Bytes held by all series. */
  get bytes(): number {
    let b = 0;
    for (const s of this.series.values()) b += s.bytes;
    return b;
  }
}

/** A past run drawn over the charts: its series, config, folder name and colour. */
export interface Overlay {
  runDir: string;
  name: string;
  config: RunConfig;
  book: SeriesBook;
  color: string;
}
