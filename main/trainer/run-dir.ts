// Run directories (DESIGN section 6): runs/<yyyymmdd-hhmmss>-<name>/ with config.json,
// metrics.jsonl (append-only: one record per logged step, episode, epoch and system sample,
// flushed every few seconds; a resume first drops the records past its checkpoint, see trimRunMetrics),
// events.log (fallbacks, halts, restarts) and checkpoints/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from './input-error.ts';
import { parseInputJsonText } from './presets.ts';
import { parseRunConfig, type RunConfig } from '../../common/config.ts';
import type { EpochSummary, RunEvent, ScalarPoint } from '../../common/run.ts';
import { SystemSampleSchema, type SystemSample } from '../../common/protocol.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { fsCause } from './fs-cause.ts';
import { makeFolder } from './folders.ts';
import { appendRegularFile, lineChunks, readRegularText, type LineChunk } from './regular-file.ts';
import { keepRunId } from './checkpoint.ts';

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
 * @throws InputError when the folder is not a run directory or its config.json is not JSON;
 *   ConfigError when that config is invalid; Error when config.json is a link or not a regular file.
 */
export function readRunConfig(runDir: string): RunConfig {
  const path = join(runDir, 'config.json');
  const text = readRegularText(path, MAX_CONFIG_BYTES);
  if (text === undefined) throw new InputError(`${runDir} is not a run directory (no config.json)`);
  return parseRunConfig(parseInputJsonText(text, path));
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

/** One line of metrics.jsonl, or undefined for a torn line or a `system` record that does not match SystemSampleSchema (it would make the run's runData message invalid for the dashboard). */
function parseMetricsLine(line: string): MetricsRecord | undefined {
  if (!line) return undefined;
  let r: MetricsRecord;
  try {
    r = JSON.parse(line) as MetricsRecord;
  } catch {
    return undefined; /* torn final line */
  }
  if (r?.type === 'system' && !SystemSampleSchema.safeParse(r).success) return undefined;
  return r;
}

/** Records of metrics.jsonl and the byte offset past the last complete line read (LineChunk.end). */
export interface MetricsChunk {
  records: MetricsRecord[];
  end: number;
}

/**
 * The records of a run's metrics.jsonl (a regular file, never a link) from byte `from`, as the
 * file is when this is called: a live run's later appends are not read, so the records read plus
 * those reported since are the run so far. Read and parsed a chunk at a time off the event loop
 * (lineChunks), so a file of gigabytes never blocks the host; a torn last line and malformed
 * records are skipped (parseMetricsLine). No file: no chunks. Iterate it to the end or break.
 * @throws Error when metrics.jsonl is a link or not a regular file.
 */
export function metricsChunks(runDir: string, from = 0): AsyncGenerator<MetricsChunk> {
  return parseChunks(lineChunks(join(runDir, 'metrics.jsonl'), from));
}

async function* parseChunks(chunks: AsyncGenerator<LineChunk>): AsyncGenerator<MetricsChunk> {
  for await (const { lines, end } of chunks) {
    const records: MetricsRecord[] = [];
    for (const line of lines) {
      const r = parseMetricsLine(line);
      if (r) records.push(r);
    }
    yield { records, end };
  }
}

/** Every record of a run's metrics.jsonl, in file order (metricsChunks collected). */
export async function readRunMetrics(runDir: string): Promise<MetricsRecord[]> {
  const out: MetricsRecord[] = [];
  for await (const { records } of metricsChunks(runDir)) for (const r of records) out.push(r);
  return out;
}
