// The dashboard (DESIGN section 8): header, config editor, run history and the chart grid.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { SCALAR_NAMES } from '../../common/run.ts';
import type { Preset } from '../../common/protocol.ts';
import { validate, withDefaults } from '../config/fields.ts';
import type { XAxisKind } from '../lib/axis-map.ts';
import { createCsvRequester } from '../lib/csv-request.ts';
import { createEvalCurvesRequester } from '../lib/eval-curves-request.ts';
import { RedrawScheduler } from '../lib/redraw.ts';
import { addressForRun } from '../lib/run-link.ts';
import { loadDraft, saveDraft } from '../config/draft-storage.ts';
import { firstVisitPreset } from '../config/first-visit.ts';
import { shortcutFor, takesText } from '../lib/shortcuts.ts';
import { shownRunConfig, type ShownRun } from '../config/shown-run.ts';
import { startBlocker } from '../config/start-blocker.ts';
import { EPISODE_SERIES, EPOCH_TIME_SERIES, EVAL_RETURN_SERIES, type Dashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';
import { ConfigEditor, draftConfig, inputId, type EditorState } from './ConfigEditor.tsx';
import { GroupPanel } from './GroupPanel.tsx';
import { Header } from './Header.tsx';
import { HeadsPanel } from './HeadsPanel.tsx';
import { HostBanner } from './HostBanner.tsx';
import { RunHistory } from './RunHistory.tsx';
import { TradingEval } from './TradingEval.tsx';
import { TradingCurves } from './TradingCurves.tsx';
import { TradingEpochCharts } from './TradingEpochCharts.tsx';
import { ScalarsPanel } from './ScalarsPanel.tsx';
import { SeriesChart, type ChartLine } from './SeriesChart.tsx';
import { ShortcutsDialog } from './ShortcutsDialog.tsx';
import { SweepList } from './SweepList.tsx';
import { SweepPanel } from './SweepPanel.tsx';
import { SystemPanel } from './SystemPanel.tsx';
import { featureColor, SERIES_COLORS } from '../lib/palette.ts';

const LOSS: ChartLine[] = [{ name: SCALAR_NAMES.loss, label: 'TD loss', color: SERIES_COLORS.amber }];
const EPOCH_TIME: ChartLine[] = [{ name: EPOCH_TIME_SERIES, label: 'epoch time (s)', color: SERIES_COLORS.orange, smooth: false, dots: true }];
const Q: ChartLine[] = [
  { name: SCALAR_NAMES.q_mean, label: 'Q mean', color: SERIES_COLORS.blue },
  { name: SCALAR_NAMES.mean_max_q, label: 'mean max-Q', color: SERIES_COLORS.violet, smooth: false },
];
const Q_BAND = { lo: SCALAR_NAMES.q_min, hi: SCALAR_NAMES.q_max, color: SERIES_COLORS.blue, label: 'Q min–max' };
const CAUSAL: ChartLine[] = [{ name: SCALAR_NAMES.causal_sensitivity, label: 'mean over features', color: SERIES_COLORS.green }];
/** One line per feature, in the environment's feature order (x, x_dot, theta, theta_dot; ret_1 ... tod). */
const causalFeatures = (names: (prefix: string) => string[]): ChartLine[] =>
  names('causal/')
    .filter((n) => n !== SCALAR_NAMES.causal_sensitivity)
    .map((name, i) => ({ name, label: name.slice('causal/'.length), color: featureColor(i), smooth: false }));
const REPLAY: ChartLine[] = [
  { name: SCALAR_NAMES.per_total, label: 'total priority', color: SERIES_COLORS.blue, smooth: false },
  { name: SCALAR_NAMES.per_max_priority, label: 'max priority', color: SERIES_COLORS.coral, smooth: false },
  { name: SCALAR_NAMES.is_weight_mean, label: 'mean IS weight', color: SERIES_COLORS.green, smooth: false },
  { name: SCALAR_NAMES.beta, label: 'beta', color: SERIES_COLORS.yellow, smooth: false },
];
const RETURNS: ChartLine[] = [
  { name: EPISODE_SERIES, label: 'training episodes', color: SERIES_COLORS.green },
  { name: EVAL_RETURN_SERIES, label: 'evaluation mean', color: SERIES_COLORS.orange, smooth: false, dots: true },
];
/**
 * Trading: training episodes only. An evaluation walks the whole validation span (thousands of
 * bars) while a training episode is `episode_length` bars, so their summed rewards do not share an
 * axis (issue 26 item 10); the evaluation is charted as its return, Sharpe and drawdown instead.
 */
const TRADING_RETURNS: ChartLine[] = RETURNS.slice(0, 1);

/** An epoch chart before its first point: a running run's empty chart read as a stuck one. */
const AFTER_EPOCH_1 = 'No data yet: a point per epoch, the first when epoch 1 ends.';

const NO_PROBLEMS = new Map<string, string>();

function readOnlyEditor(run: ShownRun): EditorState {
  const full = run.config as unknown as Record<string, unknown>;
  return { draft: full, base: full, baseName: run.name, texts: {} };
}

const DEFAULT_DRAFT = withDefaults({ env: { kind: 'cartpole' } }) as unknown as Record<string, unknown>;

/** The page origin's storage, or undefined where the browser refuses it. */
function pageStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** The dashboard: header badges, config editor, run history and the six charts, fed by `transport`. */
export function App({ dashboard, transport }: { dashboard: Dashboard; transport: Transport }) {
  // The draft being edited survives a reload (issue 26 item 11): kept in the page origin's storage.
  // `opened`: the editor as the page opened, and whether it is such a kept draft.
  const [opened] = useState(() => {
    const storage = pageStorage();
    const kept = storage && loadDraft(storage);
    return { editor: kept ?? { draft: DEFAULT_DRAFT, base: DEFAULT_DRAFT, baseName: 'defaults', texts: {} }, draftKept: kept !== undefined };
  });
  const [editor, setEditor] = useState<EditorState>(opened.editor);
  useEffect(() => {
    const storage = pageStorage();
    if (storage) saveDraft(storage, editor);
  }, [editor]);
  const [presets, setPresets] = useState<Preset[]>([]);
  const [localError, setLocalError] = useState<string | undefined>();
  // Only what the App draws: a frame (progress, series) does not re-render it.
  const s = useStore(
    dashboard.store,
    useShallow((st) => ({ runState: st.runState, startPending: st.startPending, connection: st.connection, runDir: st.runDir, runConfig: st.runConfig, host: st.host, errors: st.errors, smoothing: st.smoothing, xAxis: st.xAxis, view: st.view })),
  );
  const scheduler = useMemo(() => new RedrawScheduler((cb) => requestAnimationFrame(cb)), []);
  const csv = useMemo(() => createCsvRequester(transport), [transport]);
  const evalCurves = useMemo(() => createEvalCurvesRequester(transport), [transport]);
  // Any change of the series books (a frame, a past run opened, the smoothing) is looked at on the next animation frame.
  useEffect(() => dashboard.store.subscribe((st, prev) => void (st.version !== prev.version && scheduler.invalidate())), [dashboard, scheduler]);

  useEffect(() => {
    const off1 = transport.subscribe((m) => dashboard.apply(m));
    // A link with ?run=NAME opens that past run once the host is reachable (browser mode).
    let runFromLink = new URLSearchParams(window.location.search).get('run') ?? undefined;
    const off2 = transport.onConnection((st, d) => {
      dashboard.setConnection(st, d);
      if (st !== 'open') return;
      transport.listPresets().then(setPresets, (e: Error) => setLocalError(`could not list presets: ${e.message}`));
      if (runFromLink) {
        transport.send({ type: 'openRun', runDir: runFromLink });
        runFromLink = undefined;
      }
    });
    return () => {
      off1();
      off2();
    };
  }, [dashboard, transport]);

  // The address names the past run shown (its folder's name), so that a reload (or the copied
  // link) opens it again.
  const shownPastRun = s.view.kind === 'history' ? s.view.runDir.split(/[\\/]/).pop() : undefined;
  useEffect(() => {
    const next = addressForRun(window.location.href, shownPastRun);
    if (next !== undefined) window.history.replaceState(null, '', next);
  }, [shownPastRun]);

  /** Loads preset `p` into the editor; with `over`, only while the editor is still that state (not changed since). */
  const loadPreset = useCallback((p: Preset, over?: EditorState) => {
    try {
      const full = withDefaults(p.config as never) as unknown as Record<string, unknown>;
      const next = { draft: full, base: full, baseName: p.name, texts: {} };
      setEditor((cur) => (over === undefined || cur === over ? next : cur));
      setLocalError(undefined);
    } catch (e) {
      setLocalError(`preset ${p.name} is not a valid config: ${(e as Error).message}`);
    }
  }, []);

  // A first visit loads the bundled cartpole preset (config/first-visit.ts), decided once, when the
  // presets and the run history are known; an editor changed meanwhile (a preset picked) stays.
  const listedRuns = useStore(dashboard.store, (st) => (st.runsListed ? st.runs : undefined));
  const firstVisitDecided = useRef(false);
  useEffect(() => {
    if (firstVisitDecided.current || listedRuns === undefined || presets.length === 0) return;
    firstVisitDecided.current = true;
    const p = firstVisitPreset({ draftKept: opened.draftKept, runs: listedRuns, presets });
    if (p) loadPreset(p, opened.editor);
  }, [listedRuns, presets, opened, loadPreset]);

  // A run that ended is a new entry of the run history.
  useEffect(() => {
    if ((s.runState === 'idle' || s.runState === 'halted') && s.connection === 'open' && s.runDir) {
      try {
        transport.send({ type: 'listRuns' });
      } catch {
        /* not connected: the list is asked for again on reconnect */
      }
    }
  }, [s.runState, s.connection, s.runDir, transport]);

  const problems = useMemo(() => validate(editor.draft), [editor.draft]);
  const busy = s.runState === 'running' || s.runState === 'stopping';
  const starting = !busy && s.startPending;
  const blocked = useMemo(() => startBlocker(problems, s.connection, starting ? 'starting' : busy), [problems, s.connection, busy, starting]);
  /** Moves the focus to the invalid field that keeps Start off (its problem is shown beside it). */
  const showBlocker = useCallback(() => {
    const field = blocked?.field && document.getElementById(inputId(blocked.field));
    if (!field) return;
    field.scrollIntoView({ block: 'center' });
    field.focus();
  }, [blocked]);

  // The config panel shows the config of the run the charts show (a past run, or the live one
  // while it runs), read-only, until the user asks for an editable copy of it.
  const shownRun = useMemo(() => shownRunConfig(s.view, busy ? s.runDir : undefined, s.runConfig), [s.view, busy, s.runDir, s.runConfig]);
  const [copied, setCopied] = useState<string | undefined>();
  const readOnlyRun = shownRun && shownRun.key !== copied ? shownRun : undefined;
  // Trading rewards are basis points of equity per step, summed over an episode (issue 17):
  // not the fraction that the evaluation's `return` reports.
  // The charts' run: the opened past run, else the live or last run (also once it ended, when the
  // config panel no longer shows it).
  const chartsEnv = (s.view.kind !== 'live' ? s.view.config : s.runConfig)?.env;
  const chartsTrading = chartsEnv?.kind === 'trading';
  const returnUnit = chartsEnv?.kind === 'trading' ? `bps of equity per ${chartsEnv.episode_length}-bar episode` : 'return';
  const editCopy = useCallback(() => {
    if (!shownRun) return;
    const full = shownRun.config as unknown as Record<string, unknown>;
    setEditor({ draft: full, base: full, baseName: `${shownRun.name} (copy)`, texts: {} });
    setCopied(shownRun.key);
  }, [shownRun]);

  const guard = useCallback((f: () => void) => {
    try {
      f();
      setLocalError(undefined);
    } catch (e) {
      setLocalError((e as Error).message);
    }
  }, []);
  const start = useCallback(() => {
    if (blocked) showBlocker();
    else
      guard(() => {
        transport.send({ type: 'start', config: draftConfig(editor) });
        dashboard.startSent();
      });
  }, [blocked, showBlocker, editor, guard, transport, dashboard]);
  const stop = useCallback(() => guard(() => transport.send({ type: 'stop' })), [guard, transport]);

  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const action = shortcutFor(e, takesText(document.activeElement));
      if (action === 'start') start();
      else if (action === 'stop') stop();
      else if (action === 'focusConfig') document.querySelector<HTMLElement>('.config .fields input, .config .fields select')?.focus();
      else if (action === 'shortcuts') setShortcutsOpen((o) => !o);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [start, stop]);

  return (
    <div className="app">
      <Header dashboard={dashboard} blocked={blocked} onShowBlocker={showBlocker} onStart={start} onStop={stop} onShortcuts={() => setShortcutsOpen(true)} />
      <ShortcutsDialog open={shortcutsOpen} onClose={() => setShortcutsOpen(false)} />
      <HostBanner host={s.host} onRestart={() => guard(() => transport.restartHost())} />
      {(s.errors.length > 0 || localError) && (
        <div className="banner error" role="alert" data-testid="errors">
          {localError && <p>{localError}</p>}
          {s.errors.map((e) => (
            <p key={e.atMs + e.message}>
              {e.command}: {e.message}
            </p>
          ))}
          <button type="button" onClick={() => (dashboard.dismissErrors(), setLocalError(undefined))}>
            Dismiss
          </button>
        </div>
      )}
      <div className="layout">
        <aside className="side">
          <ConfigEditor
            editor={readOnlyRun ? readOnlyEditor(readOnlyRun) : editor}
            setEditor={setEditor}
            problems={readOnlyRun ? NO_PROBLEMS : problems}
            readOnly={readOnlyRun && { reason: readOnlyRun.reason, onEditCopy: editCopy }}
            presets={presets}
            onLoadPreset={loadPreset}
            onSavePreset={async (name) => setPresets(await transport.savePreset(name, draftConfig(editor)))}
            disabled={busy}
          />
          <RunHistory dashboard={dashboard} transport={transport} send={guard} />
          <SweepList dashboard={dashboard} transport={transport} send={guard} />
        </aside>
        <main className="charts">
          <div className="chart-toolbar">
            <label>
              Smoothing{' '}
              <input type="range" min={0} max={0.99} step={0.01} value={s.smoothing} onChange={(e) => dashboard.setSmoothing(Number(e.target.value))} aria-label="Smoothing weight" />{' '}
              {s.smoothing.toFixed(2)}
            </label>
            <label>
              x axis{' '}
              <select aria-label="x axis" value={s.xAxis} onChange={(e) => dashboard.setXAxis(e.target.value as XAxisKind)}>
                <option value="step">step</option>
                <option value="env">env step</option>
                <option value="wall">wall time</option>
              </select>
            </label>
            {s.view.kind === 'history' && <span className="viewing">showing a past run</span>}
            {s.view.kind === 'group' && <span className="viewing">showing a seed group</span>}
          </div>
          <SweepPanel dashboard={dashboard} transport={transport} send={guard} />
          <GroupPanel dashboard={dashboard} />
          <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Loss" lines={LOSS} xLabel="step" xKind="step" yLabel="Huber TD loss" />
          <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Epoch time" lines={EPOCH_TIME} xLabel="epoch" xInteger yLabel="seconds" emptyText={AFTER_EPOCH_1} />
          <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Q-values" lines={Q} band={Q_BAND} xLabel="step" xKind="step" yLabel="Q (return units)" />
          <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Causal sensitivity" lines={CAUSAL} dynamicLines={causalFeatures} xLabel="step" xKind="step" yLabel="mean |Q − Q_do(f)|" />
          <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Replay" lines={REPLAY} xLabel="step" xKind="step" logDefault />
          <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Episodic return" lines={chartsTrading ? TRADING_RETURNS : RETURNS} xLabel="env step" xKind="env" yLabel={returnUnit} />
          {/* The trading evaluation spans the charts' width: its table and curves do not fit the side panel. */}
          <TradingEval dashboard={dashboard} />
          <TradingCurves dashboard={dashboard} request={evalCurves} />
          {chartsTrading && <TradingEpochCharts dashboard={dashboard} scheduler={scheduler} csv={csv} />}
          <ScalarsPanel dashboard={dashboard} scheduler={scheduler} csv={csv} />
          <HeadsPanel dashboard={dashboard} scheduler={scheduler} csv={csv} />
          <SystemPanel dashboard={dashboard} scheduler={scheduler} csv={csv} />
        </main>
      </div>
    </div>
  );
}
