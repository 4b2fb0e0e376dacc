// The key results of a run as the run history lists them (issue 16, item 4): the final TD loss,
// the last epoch's rate and evaluation return, the wall time, the compute backend it ran on and
// how it ended, read from its metrics records and its event log.
import type { RunEvent } from '../../common/run.ts';
import { SCALAR_NAMES } from '../../common/run.ts';
import type { MetricsRecord } from './run-dir.ts';

/** What the run history shows of a run besides its name, env and epochs. */
export interface RunResults {
  finalLoss?: number;
  /** The last epoch's steps/s, or the run's average (last step / wall s) when no epoch ended. */
  stepsPerSec?: number;
  wallS?: number;
  backend?: 'cpu' | 'cuda';
  /** finished / stopped / halted by its last such event; incomplete when none (the process died, or it is live). */
  state: 'finished' | 'stopped' | 'halted' | 'incomplete';
}

/** Key results from a run's metrics records (file order) and events (log order). */
export function runResults(records: readonly MetricsRecord[], events: readonly RunEvent[]): RunResults {
  const out: RunResults = { state: 'incomplete' };
  let lastStep = 0;
  for (const r of records) {
    if (r.type === 'scalars') {
      const loss = r.values[SCALAR_NAMES.loss];
      if (typeof loss === 'number') out.finalLoss = loss;
      out.wallS = r.wall_s;
      lastStep = r.step;
    } else if (r.type === 'epoch') out.stepsPerSec = r.steps_per_s;
  }
  // No epoch ended (a short or killed run): the run's average rate instead.
  if (out.stepsPerSec === undefined && out.wallS && lastStep) out.stepsPerSec = lastStep / out.wallS;
  for (const e of events) {
    if (e.kind === 'finish') out.state = 'finished';
    else if (e.kind === 'stop') out.state = 'stopped';
    else if (e.kind === 'halt') out.state = 'halted';
    else if (e.kind === 'start' || e.kind === 'resume') {
      out.state = 'incomplete';
      const m = / on (cpu|cuda)$/.exec(e.message);
      if (m) out.backend = m[1] as 'cpu' | 'cuda';
    } else if (e.kind === 'fallback' && /^compute on CPU/.test(e.message)) out.backend = 'cpu';
  }
  return out;
}

/** Parses events.log text (one JSON event per line); unreadable lines are skipped. */
export function parseEvents(text: string): RunEvent[] {
  const out: RunEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as RunEvent;
      if (typeof e.kind === 'string' && typeof e.message === 'string') out.push(e);
    } catch {
      /* a torn last line of a killed process */
    }
  }
  return out;
}
