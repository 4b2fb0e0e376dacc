// The dashboard's state, fed only by messages from the trainer host and its supervisor.
// Long series live outside React state in SeriesBooks (typed arrays); the zustand state holds
// the small things (run state, badges, progress) and a `version` counter that charts watch.
// A live frame (one per FRAME_PERIOD_MS, a summary per series) costs O(number of series) here,
// whatever the step rate: each summary appends at most four points to its series.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { RunConfig } from '../common/config.ts';
import { FRAME_SERIES, type GpuStatus, type HostMessage, type RunSummary, type SystemSample } from '../common/protocol.ts';
import type { BackendStatus, EpochSummary, RunEvent, RunState } from '../common/run.ts';
import type { GroupListing } from '../common/seed-group.ts';
import type { SweepListing, SweepView } from '../common/sweep-state.ts';
import { GroupView, type GroupBand } from './group-view.ts';
import type { XAxisKind } from './lib/axis-map.ts';
import { DEFAULT_SMOOTHING } from './lib/ema.ts';
import { RunPalette } from './lib/palette.ts';
import { DEFAULT_MAX_POINTS } from './lib/series.ts';
import { recordsBook, SeriesBook, type Overlay } from './series-book.ts';
import type { ConnectionState } from './transport/transport.ts';

/** Series names the dashboard adds to the scalar names of common/run.ts. */
export const EPISODE_SERIES = FRAME_SERIES.episodicReturn;
export const EPOCH_TIME_SERIES = FRAME_SERIES.epochTime;
export const EVAL_RETURN_SERIES = FRAME_SERIES.evalReturn;

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
  /**
   * A start or resume was sent and the host has not answered it yet (a state message, or an error
   * for that command): the host loads the data and builds the trainer meanwhile, seconds for a
   * large CSV, and Start stays off (a second Start was refused "a run is already running").
   */
  startPending: boolean;
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
  /** Whether `runs` is the host's listing: false until the first one came (an empty list before it is no empty history). */
  runsListed: boolean;
  /** The seed groups among `runs` (their members name them in `seedGroup`). */
  groups: GroupListing[];
  /** The sweeps of the runs folder (the Sweep view's list), most recently updated first. */
  sweeps: SweepListing[];
  /** The sweep opened in the Sweep view (its trials table), until closed. */
  sweep?: SweepView;
  /**
   * What the charts show: the live run, a past run opened from the history, or a seed group
   * (its members' mean with `band` around it, and the members in `shownMembers` drawn over it).
   */
  view:
    | { kind: 'live' }
    | { kind: 'history'; runDir: string; config: RunConfig; lastEpoch?: EpochSummary; system?: RunSystemInfo }
    | { kind: 'group'; group: string; config: RunConfig; band: GroupBand; shownMembers: string[] };
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
  /** Marks that a start or resume was sent: `startPending` until the host answers it. */
  startSent(): void;
  /** Marks that `runDir` is being resumed: its history (runData) becomes the live series. */
  expectResume(runDir: string): void;
  showLive(): void;
  /** Marks `runDir` as asked for as an overlay: its runData is drawn over the charts instead of replacing them. */
  addOverlay(runDir: string): void;
  removeOverlay(runDir: string): void;
  /** The folder of the run the charts show: the opened past run, or the live or last run; undefined for a seed group (its charts draw the members' mean). */
  shownRunDir(): string | undefined;
  /** The overlaid past runs, in the order they were picked, less the run the charts show (drawn once, as itself). */
  overlays(): Overlay[];
  /** The opened seed group, while the charts show it. */
  group(): GroupView | undefined;
  /** The members of the opened group picked to be drawn over its charts, in seed order. */
  groupOverlays(): Overlay[];
  setGroupBand(band: GroupBand): void;
  /** Draws the member `runDir` of the opened group over its charts, or stops drawing it. */
  toggleGroupMember(runDir: string): void;
  /** Closes the Sweep view's opened sweep. */
  closeSweep(): void;
  setSmoothing(weight: number): void;
  setXAxis(axis: XAxisKind): void;
  dismissErrors(): void;
}

/** Creates the dashboard state and the message reducer. */
export function createDashboard(maxPoints = DEFAULT_MAX_POINTS): Dashboard {
  let live = new SeriesBook(DEFAULT_SMOOTHING, maxPoints);
  let history: SeriesBook | undefined;
  let group: GroupView | undefined;
  let resuming: string | undefined;
  /**
   * The next state message is the host's answer to this connection's hello: a snapshot of the run
   * it has, not a run that starts, so it never takes the charts from a past run opened meanwhile
   * (a ?run= link's runData can arrive before it).
   */
  let snapshotDue = false;
  /** Recent (wall_s, step) pairs for the steps/s rate. */
  let recent: { wall: number; step: number }[] = [];
  const stream: StreamStats = { frames: 0, lost: 0, lastSeq: 0 };
  const overlays = new Map<string, Overlay>();
  const pendingOverlays = new Set<string>();
  /** Colours of every run drawn over the charts: overlays and the opened group's members never share one. */
  const palette = new RunPalette();
  const overlayKey = (runDir: string) => `overlay:${runDir}`;
  /** Opens `next` as the group (or closes the group): the old members give their colours back. */
  const setGroup = (next: GroupView | undefined) => {
    if (group) palette.release(...group.members.map((m) => `member:${m.runDir}`));
    group = next;
  };

  const store = createStore<DashboardState>(() => ({
    connection: 'connecting',
    host: { restarts: 0 },
    runState: 'idle',
    startPending: false,
    progress: { step: 0, envSteps: 0, epoch: 0 },
    events: [],
    errors: [],
    runs: [],
    runsListed: false,
    groups: [],
    sweeps: [],
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
  const bookOf = (m: Extract<HostMessage, { type: 'runData' | 'liveHistory' }>) => recordsBook(m, get().smoothing, maxPoints);

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
        const envSamples = [m.envStepsAt, m.lastEpoch].filter((e) => e !== undefined).sort((a, b) => a.step - b.step);
        for (const e of envSamples) live.axis.addEnv(e.step, e.env_steps);
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
        const newRun = !!m.runDir && m.runDir !== s.runDir;
        const takesCharts = newRun && !snapshotDue;
        snapshotDue = false;
        if (newRun) {
          if (m.runDir !== resuming) resetLive();
          resuming = undefined;
        }
        if (takesCharts) {
          // A run that starts is what the charts show: an opened past run or seed group would hide it.
          history = undefined;
          setGroup(undefined);
        }
        set({
          view: takesCharts ? { kind: 'live' } : s.view,
          runState: m.state,
          // A run exists: the start was answered. An idle state (a snapshot on connecting) is not the answer.
          startPending: s.startPending && m.state !== 'running' && m.state !== 'stopping',
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
        set({ runs: m.runs, runsListed: true, groups: m.groups ?? [] });
        return;
      case 'sweeps':
        set({ sweeps: m.sweeps });
        return;
      case 'sweepData':
        set({ sweep: m.sweep });
        return;
      case 'groupData': {
        setGroup(undefined); // the old members' colours are free before the new members take theirs
        const opened = new GroupView(m, get().smoothing, maxPoints, (runDir) => palette.take(`member:${runDir}`));
        setGroup(opened);
        history = undefined;
        set({ view: { kind: 'group', group: m.group, config: opened.config, band: 'minmax', shownMembers: [] } });
        bump();
        return;
      }
      case 'runData': {
        const book = bookOf(m);
        const system = runSystemInfo(m.system);
        if (pendingOverlays.delete(m.runDir)) {
          const color = palette.take(overlayKey(m.runDir));
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
          setGroup(undefined);
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
        set((s) => ({
          errors: [...s.errors, { command: m.command, message: m.message, atMs: nowMs }].slice(-MAX_ERRORS),
          startPending: s.startPending && m.command !== 'start' && m.command !== 'resume',
        }));
        return;
      case 'hostReady':
        set((s) => ({ host: { ...s.host, pid: m.pid, restarts: m.restarts } }));
        return;
      case 'hostExit': {
        // The host's run died with it: the run is no longer live.
        const s = get();
        set({
          host: { ...s.host, pid: undefined, lastExit: { pid: m.pid, reason: m.reason, restarting: m.restarting } },
          startPending: false, // a start it had not answered died with it
          runState: s.runState === 'running' || s.runState === 'stopping' ? 'halted' : s.runState,
          stateDetail: s.runState === 'running' || s.runState === 'stopping' ? `trainer host ${m.reason}` : s.stateDetail,
        });
        return;
      }
    }
  };

  const shownRunDir = () => {
    const st = get();
    return st.view.kind === 'history' ? st.view.runDir : st.view.kind === 'live' ? st.runDir : undefined;
  };

  return {
    store,
    stream,
    get live() {
      return live;
    },
    shown: () => {
      const kind = get().view.kind;
      return (kind === 'history' && history) || (kind === 'group' && group?.book) || live;
    },
    apply,
    setConnection: (connection, connectionDetail) => {
      if (connection === 'open') snapshotDue = true;
      // A command sent before a reconnect gets no answer: the host's state message says what runs.
      set({ connection, connectionDetail, startPending: false });
    },
    startSent: () => set({ startPending: true }),
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
      palette.release(overlayKey(runDir));
      set((st) => ({ overlayDirs: st.overlayDirs.filter((d) => d !== runDir) }));
      bump();
    },
    shownRunDir,
    overlays: () => {
      // A group's charts draw its members' mean: no run there is drawn as itself.
      const shownDir = shownRunDir();
      return get().overlayDirs.flatMap((d) => (d === shownDir ? [] : (overlays.get(d) ?? [])));
    },
    group: () => (get().view.kind === 'group' ? group : undefined),
    groupOverlays: () => {
      const v = get().view;
      return v.kind === 'group' && group ? group.members.filter((m) => v.shownMembers.includes(m.runDir)) : [];
    },
    setGroupBand: (band) => {
      const v = get().view;
      if (v.kind === 'group') set({ view: { ...v, band } });
      bump();
    },
    toggleGroupMember: (runDir) => {
      const v = get().view;
      if (v.kind !== 'group') return;
      set({ view: { ...v, shownMembers: v.shownMembers.includes(runDir) ? v.shownMembers.filter((d) => d !== runDir) : [...v.shownMembers, runDir] } });
      bump();
    },
    showLive: () => {
      history = undefined;
      setGroup(undefined);
      set({ view: { kind: 'live' } });
      bump();
    },
    setSmoothing: (weight) => {
      live.setSmoothing(weight);
      history?.setSmoothing(weight);
      group?.setSmoothing(weight);
      for (const o of overlays.values()) o.book.setSmoothing(weight);
      set({ smoothing: weight });
      bump();
    },
    closeSweep: () => set({ sweep: undefined }),
    setXAxis: (xAxis) => set({ xAxis }),
    dismissErrors: () => set({ errors: [] }),
  };
}
