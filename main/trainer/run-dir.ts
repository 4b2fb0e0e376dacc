// Run directories (DESIGN section 6): runs/<yyyymmdd-hhmmss>-<name>/ with config.json,
// metrics.jsonl (append-only: one record per logged step, episode, epoch and system sample,
// flushed every few seconds; a resume first drops the records past its checkpoint, see trimRunMetrics),
// events.log (fallbacks, halts, restarts) and checkpoints/.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseJsonText } from './presets.ts';
import { parseRunConfig, type RunConfig } from '../../common/config.ts';
import type { EpochSummary, RunEvent, ScalarPoint } from '../../common/run.ts';
import { SystemSampleSchema, type SystemSample } from '../../common/protocol.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { fsCause } from './fs-cause.ts';
import { makeFolder } from './folders.ts';
import { appendRegularFile, readRegularText } from './regular-file.ts';
import { runLockHolder } from './run-lock.ts';
import { keepRunId } from './checkpoint.ts';
import { parseEvents, runResults, type RunResults } from './run-results.ts';

/** One line of metrics.jsonl. */
export type MetricsRecord =
  | ({ type: 'scalars' } & ScalarPoint)
  | ({ type: 'episode' } & { step: number; value: number })
  | ({ type: 'epoch' } & EpochSummary)
  /** The system panel's sample (about one a second, x = gradient step), kept since runs write them. */
  | ({ type: 'system' } & SystemSample);

/** `20261129-081500` in local time. */
export function runStamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

/**
 * Creates a new run directory and writes its validated config.json.
 * A second run in the same second gets a `-2`, `-3`... suffix (also when another process
 * creates one at the same time).
 * @throws Error saying what to fix when `runsDir` cannot be created (makeFolder) or written to.
 */
export function createRunDir(runsDir: string, config: RunConfig, now = new Date()): string {
  makeFolder(runsDir);
  try {
    const base = join(runsDir, `${runStamp(now)}-${config.name}`);
    let dir = base;
    // mkdir without `recursive` fails on an existing folder: two processes never share one.
    for (let i = 2; !makeNewFolder(dir); i++) dir = `${base}-${i}`;
    mkdirSync(join(dir, 'checkpoints'));
    keepRunId(dir); // the checkpoints' run id, kept when the folder is renamed
    writeFileAtomic(join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
    return dir;
  } catch (e) {
    throw new Error(`cannot create a run directory in ${runsDir}: ${fsCause(e)}`, { cause: e });
  }
}

/** Creates the folder `dir`; false when it exists already. @throws the fs error otherwise. */
function makeNewFolder(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** Largest config.json read (a full config is about 2.3 KB). */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads and validates a run directory's config.json (a regular file, never a link).
 * @throws Error when the folder is not a run directory or its config is invalid.
 */
export function readRunConfig(runDir: string): RunConfig {
  const path = join(runDir, 'config.json');
  const text = readRegularText(path, MAX_CONFIG_BYTES);
  if (text === undefined) throw new Error(`${runDir} is not a run directory (no config.json)`);
  return parseRunConfig(parseJsonText(text, path));
}

/** Buffers metrics records and appends them to metrics.jsonl on flush(). */
export class MetricsWriter {
  private pending: string[] = [];
  constructor(readonly path: string) {}

  add(record: MetricsRecord): void {
    this.pending.push(JSON.stringify(record, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)));
  }

  /**
   * Appends the buffered records.
   * @throws Error naming the file (e.g. disk full); the records stay buffered for the next flush.
   */
  flush(): void {
    if (this.pending.length === 0) return;
    try {
      appendRegularFile(this.path, `${this.pending.join('\n')}\n`);
      this.pending = [];
    } catch (e) {
      throw new Error(`could not append metrics to ${this.path}: ${fsCause(e)}; ${this.pending.length} records kept in memory`, { cause: e });
    }
  }
}

/** Appends one event to events.log at once (one JSON object per line). */
export function appendEvent(runDir: string, event: RunEvent): void {
  const path = join(runDir, 'events.log');
  try {
    appendRegularFile(path, `${JSON.stringify(event)}\n`);
  } catch (e) {
    throw new Error(`could not append to ${path}: ${fsCause(e)}`, { cause: e });
  }
}

/**
 * Makes metrics.jsonl end where a checkpoint does, before a resume appends to it: drops the
 * records past `step` (scalars, epochs: gradient steps) or past `envSteps` (episodes: env
 * steps), which the resumed run will write again, and a torn last line. Rewrites the file
 * atomically only when something is dropped; returns the number of lines dropped.
 */
export function trimRunMetrics(runDir: string, step: number, envSteps: number): number {
  const path = join(runDir, 'metrics.jsonl');
  const text = readRegularText(path, Infinity);
  if (text === undefined) return 0;
  const lines = text.split('\n').filter(Boolean);
  const kept = lines.filter((line) => {
    try {
      const r = JSON.parse(line) as MetricsRecord;
      return r.step <= (r.type === 'episode' ? envSteps : step);
    } catch {
      return false;
    }
  });
  if (kept.length === lines.length && (text === '' || text.endsWith('\n'))) return 0;
  writeFileAtomic(path, kept.length ? `${kept.join('\n')}\n` : '');
  return lines.length - kept.length;
}

/**
 * Reads metrics.jsonl; a torn last line (crash while appending) is ignored, and so is a `system`
 * record that does not match SystemSampleSchema (it would otherwise make the run's runData
 * message invalid for the dashboard).
 */
export function readRunMetrics(runDir: string): MetricsRecord[] {
  const out: MetricsRecord[] = [];
  for (const line of (readRegularText(join(runDir, 'metrics.jsonl'), Infinity) ?? '').split('\n')) {
    if (!line) continue;
    let r: MetricsRecord;
    try {
      r = JSON.parse(line) as MetricsRecord;
    } catch {
      continue; /* torn final line */
    }
    if (r?.type === 'system' && !SystemSampleSchema.safeParse(r).success) continue;
    out.push(r);
  }
  return out;
}

/** Summary of a past run for the run history. */
export interface RunListing extends Omit<RunResults, 'state'> {
  /** How it ended (RunResults.state), or live while a process holds its lock (run-lock.ts). */
  state: RunResults['state'] | 'live';
  runDir: string;
  name: string;
  createdMs: number;
  env: string;
  epochs: number;
  lastStep: number;
  lastEvalReturn?: number;
  /** Name of the `--seeds` group the run belongs to (its summary file without `.json`), if any. */
  seedGroup?: string;
}

/** Largest seeds summary file read when listing runs (a bigger one is not ours: skipped). */
const MAX_SEED_SUMMARY_BYTES = 1024 * 1024;

/**
 * The `--seeds` groups in `runsDir`: run folder name -> group name, from the summary files
 * `<stamp>-<name>-seeds.json` (main/cli/seeds.ts) whose `runs[].run_dir` name the runs (matched
 * by folder name, so a moved runs folder keeps its groups). Unreadable or malformed files are
 * skipped.
 */
export function seedGroups(runsDir: string): Map<string, string> {
  const groups = new Map<string, string>();
  for (const file of readdirSync(runsDir)) {
    if (!file.endsWith('-seeds.json')) continue;
    try {
      const summary = JSON.parse(readRegularText(join(runsDir, file), MAX_SEED_SUMMARY_BYTES) ?? '') as { runs?: unknown };
      if (!Array.isArray(summary.runs)) continue;
      for (const r of summary.runs as { run_dir?: unknown }[])
        if (typeof r?.run_dir === 'string') groups.set(basename(r.run_dir), file.slice(0, -'.json'.length));
    } catch {
      continue;
    }
  }
  return groups;
}

/** Lists run directories under `runsDir`, newest first, with their `--seeds` group; folders without a valid config are skipped. */
export function listRuns(runsDir: string): RunListing[] {
  if (!existsSync(runsDir)) return [];
  const out: RunListing[] = [];
  const groups = seedGroups(runsDir);
  for (const name of readdirSync(runsDir)) {
    const runDir = join(runsDir, name);
    let config: RunConfig;
    try {
      config = readRunConfig(runDir);
    } catch {
      continue;
    }
    const records = readRunMetrics(runDir);
    const epochs = records.filter((r): r is Extract<MetricsRecord, { type: 'epoch' }> => r.type === 'epoch');
    const last = epochs.at(-1);
    let events: RunEvent[] = [];
    try {
      events = parseEvents(readRegularText(join(runDir, 'events.log'), Infinity) ?? '');
    } catch {
      /* a link or not a regular file: no events (the run lists as incomplete) */
    }
    out.push({
      runDir,
      name,
      createdMs: statSync(join(runDir, 'config.json')).mtimeMs,
      env: config.env.kind,
      epochs: epochs.length,
      lastStep: last?.step ?? 0,
      lastEvalReturn: last?.eval_mean_return,
      ...(groups.has(name) ? { seedGroup: groups.get(name) } : {}),
      ...runResults(records, events),
      ...(runLockHolder(runDir) ? { state: 'live' as const } : {}),
    });
  }
  return out.sort((a, b) => b.name.localeCompare(a.name));
}
