// Checkpoints (DESIGN section 6): the native learner state plus step counters, in one file with
// a SHA-256 checksum over the payload, written atomically. Format:
//   "DQNCKPT1\n" + JSON header line {run, step, env_steps, epoch, network, ..., sha256, bytes} + "\n" + payload
// The header names the run (its run id: the folder's name when it was created, kept in the
// folder's `run-id` file across renames) and the network shape; on load it is checked against
// the run and its config, and a checkpoint that fails any check is skipped for an older one.
// Retention keeps the last `schedule.checkpoint_keep` checkpoints plus the best by evaluation.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, readdirSync, readSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RunConfig } from '../../common/config.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { isRealFolder, makeRunSubfolder } from './folders.ts';
import { openRegularFile, readRegularFile, readRegularText } from './regular-file.ts';

const MAGIC = 'DQNCKPT1\n';
/** Longest header read by readCheckpointHeader (the header is a few hundred bytes). */
const MAX_HEADER_BYTES = 64 * 1024;

/** The network's shape as the checkpoint header records it. */
export interface NetworkShape {
  hidden: number[];
  dueling: boolean;
  state_dim: number;
  n_actions: number;
}

/** Counters stored beside the learner state. */
export interface CheckpointMeta {
  /** Gradient steps done. */
  step: number;
  /** Environment steps collected. */
  env_steps: number;
  /** Epochs completed. */
  epoch: number;
  /** Wall seconds of training so far (all sessions of the run). */
  wall_s: number;
  /** Evaluation mean return of the epoch that wrote it; null for a stop checkpoint (not evaluated). */
  eval_mean_return?: number | null;
}

/** What the file's header holds besides the counters. */
export interface CheckpointHeader extends CheckpointMeta {
  /** Run id (runId) of the run the checkpoint belongs to. */
  run: string;
  network: NetworkShape;
  bytes: number;
  sha256: string;
}

export interface Checkpoint {
  meta: CheckpointMeta;
  /** Native learner state (NativeTrainer.saveState()). */
  state: Uint8Array;
  path: string;
}

/** The file of a run folder that holds its run id. */
export const RUN_ID_FILE = 'run-id';
const MAX_RUN_ID_CHARS = 256;

/**
 * The run id of `runDir`, the name its checkpoints carry: its `run-id` file (the folder's name
 * when the run was created, so a renamed run still resumes), or, for a run made before runs kept
 * one (or with an unreadable one: too long, a link, not a regular file), the folder's name.
 */
export function runId(runDir: string): string {
  try {
    const id = readRegularText(join(runDir, RUN_ID_FILE), 4 * MAX_RUN_ID_CHARS)?.trim();
    if (id && id.length <= MAX_RUN_ID_CHARS && !id.includes('\n')) return id;
  } catch {
    /* no run-id file: an older run, named by its folder */
  }
  return basename(runDir);
}

/**
 * Writes `runDir`'s run-id file with its current run id, if it has none (at creation, and before
 * a rename, so checkpoints written under the old name still match).
 * @throws Error naming the file when it cannot be written.
 */
export function keepRunId(runDir: string): void {
  const path = join(runDir, RUN_ID_FILE);
  if (!existsSync(path)) writeFileAtomic(path, `${runId(runDir)}\n`);
}

/** What a checkpoint must match to be loaded into a run. */
export interface CheckpointExpectation {
  /** The run id (runId). */
  run: string;
  steps_per_epoch: number;
  network: NetworkShape;
}

/** The network shape a config implies (state_dim and n_actions follow from the environment). */
export function networkShape(config: RunConfig): NetworkShape {
  const env = config.env;
  const [state_dim, n_actions] = env.kind === 'cartpole' ? [4, 2] : [7 * env.lags + 2, env.n_actions];
  return { hidden: [...config.network.hidden], dueling: config.network.dueling, state_dim, n_actions };
}

/** The expectation for checkpoints of `runDir` trained with `config`. */
export function expectationFor(runDir: string, config: RunConfig): CheckpointExpectation {
  return { run: runId(runDir), steps_per_epoch: config.schedule.steps_per_epoch, network: networkShape(config) };
}

/**
 * Writes `checkpoints/<name>` in `runDir` atomically with a checksum; the header names the run
 * (runId) and records `network`.
 * @throws Error naming the file and the cause (full disk, permissions); older checkpoints stay.
 */
export function writeCheckpoint(runDir: string, name: string, meta: CheckpointMeta, state: Uint8Array, network: NetworkShape): string {
  const dir = makeRunSubfolder(runDir, 'checkpoints');
  const sha256 = createHash('sha256').update(state).digest('hex');
  const header: CheckpointHeader = { run: runId(runDir), ...meta, network, bytes: state.byteLength, sha256 };
  const path = join(dir, name);
  writeFileAtomic(path, Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`, 'utf8'), state]));
  return path;
}

function parseHeader(path: string, buf: Buffer): { header: CheckpointHeader; end: number } {
  if (buf.subarray(0, MAGIC.length).toString('utf8') !== MAGIC) throw new Error(`${path} is not a DQN Console checkpoint`);
  const nl = buf.indexOf(0x0a, MAGIC.length);
  if (nl < 0) throw new Error(`${path}: checkpoint header is truncated`);
  try {
    return { header: JSON.parse(buf.subarray(MAGIC.length, nl).toString('utf8')) as CheckpointHeader, end: nl + 1 };
  } catch (e) {
    throw new Error(`${path}: checkpoint header is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Reads only a checkpoint's header (no checksum check): for listing and retention.
 * @throws Error when the file is missing, a link or not a regular file, or not a checkpoint.
 */
export function readCheckpointHeader(path: string): CheckpointHeader {
  const { fd } = openRegularFile(path) ?? missing(path);
  try {
    const buf = Buffer.alloc(MAX_HEADER_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return parseHeader(path, buf.subarray(0, n)).header;
  } finally {
    closeSync(fd);
  }
}

/**
 * Why `h` does not belong to the run `expect` describes, or '' when it does: the run name, the
 * counters (non-negative integers, `epoch * steps_per_epoch <= step <= (epoch + 1) * steps_per_epoch`)
 * and the network shape (a legacy header, with neither run nor network, is checked on its counters).
 */
export function checkHeader(h: CheckpointHeader, expect: CheckpointExpectation): string {
  // A header written before checkpoints named their run has neither field: its counters are
  // checked here, and its network shape by the trainer when it loads the state (which refuses
  // another shape), so runs saved by older versions still resume.
  const legacy = h.run === undefined && h.network === undefined;
  if (!legacy && h.run !== expect.run) return `belongs to run '${h.run}', not '${expect.run}' (a run folder renamed by hand resumes once its ${RUN_ID_FILE} file holds '${h.run}')`;
  for (const key of ['step', 'env_steps', 'epoch'] as const)
    if (!Number.isInteger(h[key]) || h[key] < 0) return `${key} ${JSON.stringify(h[key])} is not a non-negative integer`;
  const spe = expect.steps_per_epoch;
  if (h.step < h.epoch * spe || h.step > (h.epoch + 1) * spe) return `step ${h.step} does not fall in epoch ${h.epoch + 1} at ${spe} steps per epoch`;
  if (legacy) return '';
  const want = expect.network;
  const got = h.network;
  if (!got) return 'header records no network shape';
  for (const key of ['hidden', 'dueling', 'state_dim', 'n_actions'] as const)
    if (JSON.stringify(got[key]) !== JSON.stringify(want[key])) return `network ${key} is ${JSON.stringify(got[key])}, the run's config says ${JSON.stringify(want[key])}`;
  return '';
}

/**
 * Reads and verifies one checkpoint file; with `expect`, also checks the header against the run.
 * @throws Error naming the file and why: not a checkpoint, truncated, checksum mismatch, or a
 *   header that does not match the run (another run's, wrong counters, another network shape).
 */
export function readCheckpoint(path: string, expect?: CheckpointExpectation): Checkpoint {
  const buf = readRegularFile(path, Infinity) ?? missing(path);
  const { header, end } = parseHeader(path, buf);
  const state = new Uint8Array(buf.subarray(end));
  if (state.byteLength !== header.bytes) throw new Error(`${path}: checkpoint is truncated (${state.byteLength} of ${header.bytes} bytes)`);
  const sha = createHash('sha256').update(state).digest('hex');
  if (sha !== header.sha256) throw new Error(`${path}: checksum mismatch (file corrupted): expected ${header.sha256}, got ${sha}`);
  const why = expect ? checkHeader(header, expect) : '';
  if (why) throw new Error(`${path}: header does not match the run: ${why}`);
  const { run: _run, network: _network, bytes: _bytes, sha256: _sha, ...meta } = header;
  return { meta, state, path };
}

/** Checkpoint file names in `runDir` (temporary files excluded; none when checkpoints/ is a link). */
function checkpointNames(runDir: string): string[] {
  const dir = join(runDir, 'checkpoints');
  return isRealFolder(dir) ? readdirSync(dir).filter((n) => !n.startsWith('.')) : [];
}

function missing(path: string): never {
  throw new Error(`${path}: no such checkpoint`);
}

/**
 * The verified checkpoints of `runDir`, most steps first, each read and verified only when the
 * caller asks for it (a state may be gigabytes: one is in memory at a time). A checkpoint that
 * fails verification (unreadable, corrupted, or a header not matching `expect`) is skipped;
 * `onSkip` hears why.
 */
export function* verifiedCheckpoints(runDir: string, onSkip?: (reason: string) => void, expect?: CheckpointExpectation): Generator<Checkpoint, void> {
  const found: { path: string; step: number }[] = [];
  for (const name of checkpointNames(runDir)) {
    const path = join(runDir, 'checkpoints', name);
    try {
      const { step } = readCheckpointHeader(path);
      found.push({ path, step: Number.isFinite(step) ? step : -1 }); // a bad count is refused by readCheckpoint
    } catch (e) {
      onSkip?.((e as Error).message);
    }
  }
  found.sort((a, b) => b.step - a.step);
  for (const { path } of found) {
    let c: Checkpoint;
    try {
      c = readCheckpoint(path, expect);
    } catch (e) {
      onSkip?.((e as Error).message);
      continue;
    }
    yield c;
  }
}

/** The first of `checkpoints` (verifiedCheckpoints), or undefined when there is none. */
export function nextCheckpoint(checkpoints: Iterator<Checkpoint, void>): Checkpoint | undefined {
  const r = checkpoints.next();
  return r.done ? undefined : r.value;
}

/**
 * The verified checkpoint with the most steps in `runDir`, or undefined when there is none.
 * A newer checkpoint that fails verification is skipped in favour of an older valid one;
 * `onSkip` hears why.
 */
export function latestCheckpoint(runDir: string, onSkip?: (reason: string) => void, expect?: CheckpointExpectation): Checkpoint | undefined {
  return nextCheckpoint(verifiedCheckpoints(runDir, onSkip, expect));
}

/**
 * Retention: keeps the `keep` checkpoints with the most steps plus the one with the best
 * evaluation mean return (the later one on a tie) and deletes the other checkpoints of
 * `runDir`; stop checkpoints count like epoch ones. Files whose header cannot be read are left
 * alone. Returns the names deleted.
 */
export function pruneCheckpoints(runDir: string, keep: number): string[] {
  const found: { name: string; h: CheckpointHeader }[] = [];
  for (const name of checkpointNames(runDir)) {
    try {
      found.push({ name, h: readCheckpointHeader(join(runDir, 'checkpoints', name)) });
    } catch {
      /* unreadable: not ours to delete */
    }
  }
  found.sort((a, b) => b.h.step - a.h.step);
  const kept = new Set(found.slice(0, keep).map((f) => f.name));
  let best: (typeof found)[number] | undefined;
  for (const f of found) {
    const r = f.h.eval_mean_return;
    if (typeof r === 'number' && Number.isFinite(r) && (!best || r > (best.h.eval_mean_return as number))) best = f;
  }
  if (best) kept.add(best.name);
  const removed = found.filter((f) => !kept.has(f.name)).map((f) => f.name);
  for (const name of removed) rmSync(join(runDir, 'checkpoints', name), { force: true });
  return removed;
}
