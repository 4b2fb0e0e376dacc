// The dashboard's state, fed only by messages from the trainer host and its supervisor.
// Long series live outside React state in SeriesBooks (typed arrays); the zustand state holds
// the small things (run state, badges, progress) and a `version` counter that charts watch.
// A live frame (one per FRAME_PERIOD_MS, a summary per series) costs O(number of series) here,
// whatever the step rate: each summary appends at most four points to its series.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { RunConfig } from '../common/config.ts';
import {
  epochSeriesPoints,
  FRAME_SERIES,
  fromWire,
  systemSeriesPoints,
  type Frame,
  type GpuStatus,
  type HostMessage,
  type RunSummary,
  type SeriesSummary,
  type SystemSample,
} from '../common/protocol.ts';
import type { BackendStatus, EpochSummary, RunEvent, RunState, ScalarPoint } from '../common/run.ts';
import { AxisMap, type XAxisKind } from './lib/axis-map.ts';
import { DEFAULT_SMOOTHING } from './lib/ema.ts';
import { pickRunColor } from './lib/palette.ts';
import { DEFAULT_MAX_POINTS, Series } from './lib/series.ts';
import type { ConnectionState } from './transport/transport.ts';

/** Series names the dashboard adds to the scalar names of common/run.ts. */
export const EPISODE_SERIES = FRAME_SERIES.episodicReturn;
export const EPOCH_TIME_SERIES = FRAME_SERIES.epochTime;
export const EVAL_RETURN_SERIES = FRAME_SERIES.evalReturn;

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
    for (const e of episodes) this.push(EPISODE_SERIES, e.step, e.value);
  }
  addEpochs(epochs: readonly EpochSummary[]): void {
    for (const e of epochs) {
      this.axis.addEnv(e.step, e.env_steps);
      for (const [name, x, y] of epochSeriesPoints(e)) this.push(name, x, y);
    }
  }
  /** A run's system samples (runData): the same SYSTEM_SERIES a live frame fills, x = step. */
  addSystem(samples: readonly SystemSample[]): void {
    for (const s of samples) for (const [name, y] of systemSeriesPoints(s)) this.push(name, s.step, y);
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

export interface HostInfo {
  pid?: number;
  restarts: number;
  /** The last exit of a host process, shown until the next run starts. */
  lastExit?: { pid: number; reason: string; restarting: boolean };
}

export interface Progress {
  step: number;
  envSteps: number;
  epoch: number;
  /** Gradient steps per second over the last few seconds of run time. */
  stepsPerSec?: number;
  etaSec?: number;
  /** Local time (ms) the last frame arrived. */
  lastUpdateMs?: number;
}

/** What a past run kept of the system panel: how many samples runData carried, and the last one's GPU status. */
export interface RunSystemInfo {
  samples: number;
  gpu?: GpuStatus;
}

/** The system info of a runData message's samples (none for a run recorded before they were kept). */
export function runSystemInfo(samples: readonly SystemSample[] | undefined): RunSystemInfo {
  const last = samples?.at(-1);
  return { samples: samples?.length ?? 0, ...(last ? { gpu: { available: last.gpu.available, reason: last.gpu.reason } } : {}) };
}

export interface DashboardState {
  connection: ConnectionState;
  connectionDetail?: string;
  host: HostInfo;
  runState: RunState;
  stateDetail?: string;
  runDir?: string;
  runConfig?: RunConfig;
  backends?: BackendStatus;
  progress: Progress;
  /** The last epoch summary of the run shown live. */
  lastEpoch?: EpochSummary;
  events: RunEvent[];
  errors: { command: string; message: string; atMs: number }[];
  runs: RunSummary[];
  /** What the charts show: the live run, or a past run opened from the history. */
  view: { kind: 'live' } | { kind: 'history'; runDir: string; config: RunConfig; lastEpoch?: EpochSummary; system?: RunSystemInfo };
  /** Bumped whenever a series book changes (charts redraw on it). */
  version: number;
  smoothing: number;
  /** What the step-based charts use as x: gradient step, env step or wall time since the start. */
  xAxis: XAxisKind;
  /** Past runs picked to be drawn over the charts, in the order picked (loaded or still loading; their books: Dashboard.overlays()). */
  overlayDirs: string[];
  /** Whether the live run's host has GPU readings (NVML), and if not why; unknown before its first system sample. */
  gpu?: GpuStatus;
}

/** A past run drawn over the charts: its series, config, folder name and colour. */
export interface Overlay {
  runDir: string;
  name: string;
  config: RunConfig;
  book: SeriesBook;
  color: string;
}

/** How far back (s of run time) the steps/s rate looks. */
const RATE_WINDOW_S = 3;
const MAX_EVENTS = 200;
const MAX_ERRORS = 5;

/** What arrived of the live stream: frames applied and frames lost (gaps in their `seq`). */
export interface StreamStats {
  frames: number;
  lost: number;
  lastSeq: number;
}

export interface Dashboard {
  store: StoreApi<DashboardState>;
  /** Live frame counters (outside React state: they change with every frame). */
  stream: StreamStats;
  live: SeriesBook;
  /** The book the charts draw (live or the opened past run). */
  shown(): SeriesBook;
  /** Applies one message from the host or the supervisor. */
  apply(message: HostMessage, nowMs?: number): void;
  setConnection(state: ConnectionState, detail?: string): void;
  /** Marks that `runDir` is being resumed: its history (runData) becomes the live series. */
  expectResume(runDir: string): void;
  showLive(): void;
  /** Marks `runDir` as asked for as an overlay: its runData is drawn over the charts instead of replacing them. */
  addOverlay(runDir: string): void;
  removeOverlay(runDir: string): void;
  /** The overlaid past runs, in the order they were picked, less the run the charts show (drawn once, as itself). */
  overlays(): Overlay[];
  setSmoothing(weight: number): void;
  setXAxis(axis: XAxisKind): void;
  dismissErrors(): void;
}

/** Creates the dashboard state and the message reducer. */
export function createDashboard(maxPoints = DEFAULT_MAX_POINTS): Dashboard {
  let live = new SeriesBook(DEFAULT_SMOOTHING, maxPoints);
  let history: SeriesBook | undefined;
  let resuming: string | undefined;
  /** Recent (wall_s, step) pairs for the steps/s rate. */
  let recent: { wall: number; step: number }[] = [];
  const stream: StreamStats = { frames: 0, lost: 0, lastSeq: 0 };
  const overlays = new Map<string, Overlay>();
  const pendingOverlays = new Set<string>();

  const store = createStore<DashboardState>(() => ({
    connection: 'connecting',
    host: { restarts: 0 },
    runState: 'idle',
    progress: { step: 0, envSteps: 0, epoch: 0 },
    events: [],
    errors: [],
    runs: [],
    view: { kind: 'live' },
    version: 0,
    smoothing: DEFAULT_SMOOTHING,
    xAxis: 'step',
    overlayDirs: [],
  }));
  const set = store.setState;
  const get = store.getState;
  const bump = () => set((s) => ({ version: s.version + 1 }));

  const resetLive = () => {
    live = new SeriesBook(get().smoothing, maxPoints);
    recent = [];
    stream.lastSeq = 0;
    set({ lastEpoch: undefined, events: [], progress: { step: 0, envSteps: 0, epoch: 0 }, gpu: undefined });
  };

  /** The series of a run's records (a runData or liveHistory message). */
  const bookOf = (m: Extract<HostMessage, { type: 'runData' | 'liveHistory' }>) => {
    const book = new SeriesBook(get().smoothing, maxPoints);
    book.addScalars(m.scalars);
    book.addEpisodes(m.episodes);
    book.addEpochs(m.epochs);
    book.addSystem(m.system ?? []);
    return book;
  };

  /** Progress after `points` ((wall_s, step) reads, oldest first) and the epoch summary `e`. */
  const updateProgress = (points: readonly { step: number; wall_s: number }[], e: EpochSummary | undefined, nowMs: number) => {
    const prev = get().progress;
    const next: Progress = { ...prev, lastUpdateMs: nowMs };
    for (const p of points) {
      recent.push({ wall: p.wall_s, step: p.step });
      next.step = Math.max(next.step, p.step);
    }
    const lastWall = recent.at(-1)?.wall ?? 0;
    let drop = 0;
    while (drop < recent.length && lastWall - recent[drop]!.wall > RATE_WINDOW_S) drop++;
    if (drop) recent = recent.slice(drop);
    const first = recent[0];
    const last = recent.at(-1);
    if (first && last && last.wall > first.wall) next.stepsPerSec = (last.step - first.step) / (last.wall - first.wall);
    if (e) {
      next.epoch = e.epoch;
      next.envSteps = e.env_steps;
      next.step = Math.max(next.step, e.step);
    }
    const cfg = get().runConfig;
    if (cfg && next.stepsPerSec && next.stepsPerSec > 0) {
      const total = cfg.schedule.epochs * cfg.schedule.steps_per_epoch;
      next.etaSec = Math.max(0, total - next.step) / next.stepsPerSec;
    }
    return next;
  };

  const apply = (m: HostMessage, nowMs = Date.now()) => {
    switch (m.type) {
      case 'frame': {
        const s = get();
        // Only frames of the run this page knows as live: a page that just connected drops the
        // frames broadcast before the answer to its hello (state, then liveHistory, which holds
        // those records too), so its charts never start from a frame and then jump.
        if (!s.runDir || m.runDir !== s.runDir) return;
        if (stream.lastSeq && m.seq > stream.lastSeq + 1) stream.lost += m.seq - stream.lastSeq - 1;
        stream.lastSeq = m.seq;
        stream.frames++;
        live.addSummaries(m.series);
        const p = m.progress;
        if (p) live.axis.addWall(p.step, p.wall_s);
        if (m.lastEpoch) live.axis.addEnv(m.lastEpoch.step, m.lastEpoch.env_steps);
        const progress = updateProgress(p ? [p] : [], m.lastEpoch, nowMs);
        if (p) progress.envSteps = Math.max(progress.envSteps, p.env_steps);
        set({
          progress,
          lastEpoch: m.lastEpoch ?? s.lastEpoch,
          events: m.events.length ? [...s.events, ...m.events].slice(-MAX_EVENTS) : s.events,
          gpu: m.gpu ?? s.gpu,
        });
        bump();
        return;
      }
      case 'state': {
        const s = get();
        if (m.runDir && m.runDir !== s.runDir) {
          if (m.runDir !== resuming) resetLive();
          resuming = undefined;
        }
        set({
          runState: m.state,
          stateDetail: m.detail,
          runDir: m.runDir ?? s.runDir,
          runConfig: m.config ?? s.runConfig,
          // A new run clears the last host exit once it is running again.
          host: m.state === 'running' && m.runDir !== s.runDir ? { ...s.host, lastExit: undefined } : s.host,
        });
        bump();
        return;
      }
      case 'backends':
        set({ backends: m.status });
        return;
      case 'runs':
        set({ runs: m.runs });
        return;
      case 'runData': {
        const book = bookOf(m);
        const system = runSystemInfo(m.system);
        if (pendingOverlays.delete(m.runDir)) {
          const color = pickRunColor([...overlays.values()].map((o) => o.color));
          overlays.set(m.runDir, { runDir: m.runDir, name: m.runDir.split(/[\\/]/).pop() ?? m.runDir, config: m.config, book, color });
          set((st) => ({ overlayDirs: [...st.overlayDirs] })); // a new array: the run history redraws
          bump();
          return;
        }
        if (m.runDir === resuming) {
          live = book;
          recent = [];
          stream.lastSeq = 0;
          set({ lastEpoch: m.epochs.at(-1), events: [], runConfig: m.config, runDir: m.runDir, view: { kind: 'live' }, progress: updateProgress(m.scalars.slice(-1), m.epochs.at(-1), nowMs), gpu: system.gpu });
          resuming = undefined;
        } else {
          history = book;
          set({ view: { kind: 'history', runDir: m.runDir, config: m.config, lastEpoch: m.epochs.at(-1), system } });
        }
        bump();
        return;
      }
      case 'liveHistory': {
        // The run so far, sent after our hello: it replaces what the live series hold.
        if (m.runDir !== get().runDir) return;
        live = bookOf(m);
        stream.lastSeq = 0; // later frames continue from the history, whatever their seq
        // The GPU status of the run's last system sample, until the next frame brings a newer one.
        const gpu = runSystemInfo(m.system).gpu ?? get().gpu;
        set({ lastEpoch: m.epochs.at(-1), progress: updateProgress(m.scalars.slice(-1), m.epochs.at(-1), nowMs), gpu });
        bump();
        return;
      }
      case 'pong':
        return;
      case 'error':
        set((s) => ({ errors: [...s.errors, { command: m.command, message: m.message, atMs: nowMs }].slice(-MAX_ERRORS) }));
        return;
      case 'hostReady':
        set((s) => ({ host: { ...s.host, pid: m.pid, restarts: m.restarts } }));
        return;
      case 'hostExit': {
        // The host's run died with it: the run is no longer live.
        const s = get();
        set({
          host: { ...s.host, pid: undefined, lastExit: { pid: m.pid, reason: m.reason, restarting: m.restarting } },
          runState: s.runState === 'running' || s.runState === 'stopping' ? 'halted' : s.runState,
          stateDetail: s.runState === 'running' || s.runState === 'stopping' ? `trainer host ${m.reason}` : s.stateDetail,
        });
        return;
      }
    }
  };

  return {
    store,
    stream,
    get live() {
      return live;
    },
    shown: () => (get().view.kind === 'history' && history ? history : live),
    apply,
    setConnection: (connection, connectionDetail) => set({ connection, connectionDetail }),
    expectResume: (runDir) => {
      resuming = runDir;
    },
    addOverlay: (runDir) => {
      if (overlays.has(runDir) || pendingOverlays.has(runDir)) return;
      pendingOverlays.add(runDir);
      set((st) => ({ overlayDirs: [...st.overlayDirs, runDir] }));
    },
    removeOverlay: (runDir) => {
      pendingOverlays.delete(runDir);
      overlays.delete(runDir);
      set((st) => ({ overlayDirs: st.overlayDirs.filter((d) => d !== runDir) }));
      bump();
    },
    overlays: () => {
      const st = get();
      const shownDir = st.view.kind === 'history' ? st.view.runDir : st.runDir;
      return st.overlayDirs.flatMap((d) => (d === shownDir ? [] : (overlays.get(d) ?? [])));
    },
    showLive: () => {
      history = undefined;
      set({ view: { kind: 'live' } });
      bump();
    },
    setSmoothing: (weight) => {
      live.setSmoothing(weight);
      history?.setSmoothing(weight);
      for (const o of overlays.values()) o.book.setSmoothing(weight);
      set({ smoothing: weight });
      bump();
    },
    setXAxis: (xAxis) => set({ xAxis }),
    dismissErrors: () => set({ errors: [] }),
  };
}
