// Header: run state, compute and replay badges (with the fallback reason; the replay's says where
// the environments step when not on the host), steps/s, epoch, ETA,
// the live indicator, the trainer host's pid and the Start / Stop buttons.
import { useEffect, useLayoutEffect, useRef, useState, type HTMLAttributes } from 'react';
import { useStore } from 'zustand';
import { evalWalks, type BackendStatus } from '../../common/run.ts';
import type { StartBlocker } from '../config/start-blocker.ts';
import { themeStore } from '../lib/theme-store.ts';
import { durationText } from '../lib/duration.ts';
import { inputId } from './ConfigEditor.tsx';
import type { Dashboard } from '../store.ts';

const STATE_LABEL = { idle: 'Idle', running: 'Running', stopping: 'Stopping', halted: 'Halted' } as const;

/** `Compute: CUDA (NVIDIA H200)` / `Compute: CPU (no CUDA device)`. */
export function computeBadge(b: BackendStatus | undefined): string {
  if (!b) return 'Compute: – (no run yet)';
  const c = b.compute;
  const what = c.backend === 'cuda' ? 'CUDA' : 'CPU';
  const why = c.backend === 'cuda' ? b.deviceName : c.reason;
  return `Compute: ${what}${why ? ` (${why})` : ''}`;
}

/**
 * `Replay: GPU PER` / `Replay: CPU PER (fallback: out of memory, 3.8 GiB asked)`; `uniform` when PER
 * is off. Where the transitions come from, when not the default host environments, follows
 * (`collectorText`): one badge for the data path keeps the header on one line at 1280 px.
 */
export function replayBadge(b: BackendStatus | undefined, sampler: string | undefined): string {
  if (!b) return 'Replay: – (no run yet)';
  const kind = sampler === 'uniform' ? 'uniform' : 'PER';
  const where = b.replay.backend === 'cuda' ? 'GPU' : 'CPU';
  return `Replay: ${where} ${kind}${b.replay.reason ? ` (fallback: ${b.replay.reason})` : ''}${collectorText(b)}`;
}

/**
 * `, envs on GPU` when the training environments step on the device (env.collector 'device'), `, envs and eval walks
 * on GPU` when a trading run's evaluation walks step there too, `, envs on GPU; eval walks on host (why)` when those
 * fell back to the host; `; envs on host (why)` when the device was asked for and could not be used; '' otherwise
 * (host stepping, the default, or a host that does not say).
 */
export function collectorText(b: BackendStatus): string {
  const c = b.collector;
  if (!c) return '';
  if (c.where === 'device') {
    const walks = evalWalks(c);
    if (!walks) return ', envs on GPU';
    return walks.where === 'device' ? ', envs and eval walks on GPU' : `, envs on GPU; eval walks on host (${walks.why})`;
  }
  return c.reason ? `; envs on host (${c.reason})` : '';
}

/** `6420 steps/s` (a decimal only under 100/s, where it says something); `– steps/s` before the first rate. */
export function stepsPerSecText(rate: number | undefined): string {
  if (!rate) return '– steps/s';
  return `${rate >= 100 ? rate.toFixed(0) : rate.toFixed(1)} steps/s`;
}

/**
 * A header item that gives way when the row is short of room: `text` cut with an ellipsis, but
 * never narrower than its `head` (the start of it that stays whole, e.g. "Replay: GPU PER"; the
 * whole text by default) or `em` wide where the head is wider; its title holds the whole text
 * unless `title` says otherwise. The least width is the head's width as drawn (an estimate in
 * `ch` left short badges wider than their text, with empty space inside the border).
 */
function Cut({ text, head = text, em, title = text, ...rest }: { text: string; head?: string; em: number; title?: string } & HTMLAttributes<HTMLSpanElement> & { 'data-testid'?: string; 'data-pid'?: string }) {
  const headRef = useRef<HTMLSpanElement>(null);
  const [minWidth, setMinWidth] = useState<string>();
  useLayoutEffect(() => {
    const item = headRef.current!.parentElement!;
    const box = getComputedStyle(item);
    const edges = ['paddingLeft', 'paddingRight', 'borderLeftWidth', 'borderRightWidth'] as const;
    const extra = edges.reduce((sum, edge) => sum + parseFloat(box[edge]), 0);
    setMinWidth(`min(${Math.ceil(headRef.current!.getBoundingClientRect().width + extra)}px, ${em}em)`);
  }, [head, em]);
  return (
    <span {...rest} className={`${rest.className ?? ''} shrink`} title={title} style={{ minWidth }}>
      <span ref={headRef}>{head}</span>
      {text.slice(head.length)}
    </span>
  );
}

/**
 * The header's ETA (`etaSec` missing while no run is live): with a target return set
 * (schedule.target_return, not null) only an upper bound, "ETA ≤ 20 s", with its title saying why.
 */
export function etaText(etaSec: number | undefined, targetReturn: number | null | undefined): { text: string; title?: string } {
  const eta = durationText(etaSec);
  if (typeof targetReturn !== 'number' || eta === '–') return { text: `ETA ${eta}` };
  return { text: `ETA ≤ ${eta}`, title: `an upper bound: the run stops earlier once an evaluation reaches the target return (${Number(targetReturn.toPrecision(6))})` };
}

/**
 * Run state, Compute and Replay badges, steps/s, epoch, ETA, live indicator, the Start / Stop
 * buttons, the theme switch and the shortcut list's button; while Start is off, why (`blocked`)
 * on a line of its own under the buttons, which moves the focus to the invalid field when clicked (`onShowBlocker`).
 */
export function Header({ dashboard, blocked, onShowBlocker, onStart, onStop, onShortcuts }: { dashboard: Dashboard; blocked: StartBlocker | undefined; onShowBlocker: () => void; onStart: () => void; onStop: () => void; onShortcuts: () => void }) {
  const s = useStore(dashboard.store);
  const theme = useStore(themeStore, (t) => t.theme);
  const other = theme === 'dark' ? 'light' : 'dark';
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const live = s.runState === 'running' && s.progress.lastUpdateMs !== undefined && now - s.progress.lastUpdateMs < 3000;
  const cfg = s.runConfig;
  const running = s.runState === 'running' || s.runState === 'stopping';
  const eta = etaText(running ? s.progress.etaSec : undefined, cfg?.schedule.target_return);
  // Why Start is off is not written while a run starts: the Starting badge says it (the line reads as a problem).
  const starting = s.startPending && !running;
  // Long texts (a fallback reason, a connection error) are cut to the header's one line; their title holds them whole.
  const compute = computeBadge(s.backends);
  const replay = replayBadge(s.backends, cfg?.replay.sampler);
  // What stays whole of it ("Replay: GPU PER"); the reasons after it give way.
  const replayHead = replayBadge(s.backends && { ...s.backends, replay: { ...s.backends.replay, reason: '' }, collector: undefined }, cfg?.replay.sampler);
  const hostText = s.connection !== 'open' ? `server: ${s.connection}${s.connectionDetail ? ` (${s.connectionDetail})` : ''}` : s.host.pid ? `pid ${s.host.pid}` : 'host: starting';
  const reason = blocked && !running && !starting && (blocked.field !== undefined ? (
    <a
      className="start-blocked"
      id="start-blocked"
      href={`#${inputId(blocked.field)}`}
      onClick={(e) => {
        e.preventDefault();
        onShowBlocker();
      }}
      title={`${blocked.text} (click or Ctrl+Enter: go to the field)`}
    >
      {blocked.text}
    </a>
  ) : (
    <span className="start-blocked" id="start-blocked">
      {blocked.text}
    </span>
  ));
  return (
    <header className="top">
      <div className="header">
        <h1>DQN Console</h1>
        <span className={`run-state state-${s.runState}`} role="status" aria-label="Run state" data-testid="run-state">
          {starting ? 'Starting' : STATE_LABEL[s.runState]}
        </span>
        {s.stateDetail && <Cut className="state-detail" data-testid="state-detail" text={s.stateDetail} em={12} />}
        <Cut className="badge" data-testid="compute-badge" text={compute} em={10} />
        <Cut className="badge" data-testid="replay-badge" text={replay} head={replayHead} em={14} />
        <span className="metric" title="gradient steps per second">{stepsPerSecText(s.progress.stepsPerSec)}</span>
        <span className="metric">
          epoch {s.progress.epoch}
          {cfg ? ` / ${cfg.schedule.epochs}` : ''}
        </span>
        <span className="metric">step {s.progress.step}</span>
        <span className="metric" title={eta.title}>{eta.text}</span>
        <span className={`live ${live ? 'on' : 'off'}`} title={s.progress.lastUpdateMs ? `last update ${new Date(s.progress.lastUpdateMs).toLocaleTimeString()}` : 'no update yet'}>
          {/* A running run without a recent update (building, or between frames) is still live: "not live" beside "Running" read as a dead run. */}
          {live ? '● live' : s.runState === 'running' ? '○ waiting for data' : '○ not live'}
        </span>
        <Cut className="metric" data-testid="host-pid" data-pid={String(s.host.pid ?? '')} text={hostText} em={8} title={hostText === `pid ${s.host.pid}` ? `the trainer host's process id: ${s.host.pid}` : hostText} />
        <span className="spacer" />
        <button type="button" className="primary" onClick={onStart} disabled={!!blocked} aria-keyshortcuts="Control+Enter" aria-describedby={blocked && !running && !starting ? 'start-blocked' : undefined} title={blocked ? `Start is off: ${blocked.text}` : 'Start a run with this config (Ctrl+Enter)'}>
          Start
        </button>
        <button type="button" onClick={onStop} disabled={s.runState !== 'running'} aria-keyshortcuts="Control+." title="Stop the run; a checkpoint is kept (Ctrl+.)">
          Stop
        </button>
        <button type="button" className="icon" onClick={() => themeStore.getState().setTheme(other)} aria-label={`${other === 'light' ? 'Light' : 'Dark'} theme`} title={`Switch to the ${other} theme (kept for the next visit)`}>
          {other === 'light' ? '☀' : '☾'}
        </button>
        <button type="button" className="icon" onClick={onShortcuts} aria-keyshortcuts="?" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">
          ?
        </button>
      </div>
      {/* Why Start is off, on a line of its own under the buttons: beside them it was cut to "fix optim.lr to…" at 1280 px. */}
      {reason && <div className="start-why">{reason}</div>}
    </header>
  );
}
