// Checkpoints (DESIGN section 6): the native learner state plus step counters, in one file with
// a SHA-256 checksum over the payload, written atomically. Format:
//   "DQNCKPT1\n" + JSON header line {step, env_steps, epoch, sha256, bytes, ...meta} + "\n" + payload bytes
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.ts';

const MAGIC = 'DQNCKPT1\n';

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
}

export interface Checkpoint {
  meta: CheckpointMeta;
  /** Native learner state (NativeTrainer.saveState()). */
  state: Uint8Array;
  path: string;
}

/**
 * Writes `checkpoints/<name>` in `runDir` atomically with a checksum.
 * @throws Error naming the file and the cause (full disk, permissions); older checkpoints stay.
 */
export function writeCheckpoint(runDir: string, name: string, meta: CheckpointMeta, state: Uint8Array): string {
  const dir = join(runDir, 'checkpoints');
  mkdirSync(dir, { recursive: true });
  const sha256 = createHash('sha256').update(state).digest('hex');
  const header = Buffer.from(`${MAGIC}${JSON.stringify({ ...meta, bytes: state.byteLength, sha256 })}\n`, 'utf8');
  const path = join(dir, name);
  writeFileAtomic(path, Buffer.concat([header, state]));
  return path;
}

/**
 * Reads and verifies one checkpoint file.
 * @throws Error if the file is not a checkpoint, is truncated, or its checksum does not match.
 */
export function readCheckpoint(path: string): Checkpoint {
  const buf = readFileSync(path);
  if (buf.subarray(0, MAGIC.length).toString('utf8') !== MAGIC) throw new Error(`${path} is not a DQN Console checkpoint`);
  const nl = buf.indexOf(0x0a, MAGIC.length);
  if (nl < 0) throw new Error(`${path}: checkpoint header is truncated`);
  const header = JSON.parse(buf.subarray(MAGIC.length, nl).toString('utf8')) as CheckpointMeta & { bytes: number; sha256: string };
  const state = new Uint8Array(buf.subarray(nl + 1));
  if (state.byteLength !== header.bytes) throw new Error(`${path}: checkpoint is truncated (${state.byteLength} of ${header.bytes} bytes)`);
  const sha = createHash('sha256').update(state).digest('hex');
  if (sha !== header.sha256) throw new Error(`${path}: checksum mismatch (file corrupted): expected ${header.sha256}, got ${sha}`);
  const { bytes: _bytes, sha256: _sha, ...meta } = header;
  return { meta, state, path };
}

/**
 * The verified checkpoint with the most steps in `runDir`, or undefined when there is none.
 * A corrupted newer checkpoint is skipped in favour of an older valid one; `onSkip` hears why.
 */
export function latestCheckpoint(runDir: string, onSkip?: (reason: string) => void): Checkpoint | undefined {
  const dir = join(runDir, 'checkpoints');
  if (!existsSync(dir)) return undefined;
  let best: Checkpoint | undefined;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    try {
      const c = readCheckpoint(join(dir, name));
      if (!best || c.meta.step > best.meta.step) best = c;
    } catch (e) {
      onSkip?.((e as Error).message);
    }
  }
  return best;
}
