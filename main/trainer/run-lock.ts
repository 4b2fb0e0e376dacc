// One process trains a run folder at a time. A live run holds `<runDir>/live.lock` (its pid,
// host name and start time) from before it writes anything until its epoch loop ends; a second
// start or resume of the same folder, and a rename or delete of it, is refused while the holder
// lives. Without it two processes resuming one run overwrite each other's checkpoints and append
// the same epochs twice to metrics.jsonl. A lock left by a process that died (SIGKILL, power
// loss) is stale and taken over; one written on another host (a shared folder) cannot be
// checked, so it counts as live and the message says how to clear it.
import { linkSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive, tempNameFor, writeNewFile } from './atomic-file.ts';
import { fsCause } from './fs-cause.ts';
import { readRegularText } from './regular-file.ts';

/** The lock file's name inside a run folder. */
export const LOCK_FILE = 'live.lock';

/** What a lock file holds. */
interface LockRecord {
  pid: number;
  hostname: string;
  /** ISO 8601 time the holder took the lock. */
  started: string;
}

/** A held run lock. */
export interface RunLock {
  readonly path: string;
  /** Removes the lock file if this process still holds it (idempotent; never throws). */
  release(): void;
}

/** Largest lock file read (a record is under 200 bytes). */
const MAX_LOCK_BYTES = 4096;
/** Largest process id a lock may name (Linux's PID_MAX_LIMIT, 2^22; other systems stay below it). */
const MAX_PID = 1 << 22;

/**
 * Whether `pid` can name a trainer: a whole number from 2 to MAX_PID. Signalling 0 or a negative
 * pid reaches a process group (always "alive"), and 1 is init, alive as long as the system: a
 * lock naming one of them would count as live forever.
 */
const validPid = (pid: unknown): pid is number => Number.isInteger(pid) && (pid as number) >= 2 && (pid as number) <= MAX_PID;

/**
 * The lock's record, or undefined when there is none or it is unreadable (torn, too large, a pid
 * that cannot name a trainer, or not a regular file, such as a planted FIFO that would block a
 * plain read: stale).
 */
function readLock(path: string): LockRecord | undefined {
  try {
    const r = JSON.parse(readRegularText(path, MAX_LOCK_BYTES) ?? '') as Partial<LockRecord>;
    if (validPid(r.pid) && typeof r.hostname === 'string' && typeof r.started === 'string') return r as LockRecord;
  } catch {
    /* missing or torn: no holder */
  }
  return undefined;
}

/** Hard-links `from` to `to` (atomic: `to` appears complete); false when `to` exists. */
function linkIfAbsent(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** Whether the holder may still be training: alive on this host, or on another host (unknowable). */
const holderLive = (r: LockRecord) => r.hostname !== hostname() || processAlive(r.pid);

/** The sentence that names a live holder and what to do. */
function liveMessage(runDir: string, r: LockRecord): string {
  const where = r.hostname === hostname() ? (r.pid === process.pid ? 'this process' : `process ${r.pid}`) : `process ${r.pid} on host '${r.hostname}'`;
  return `${runDir} is being trained by ${where} (since ${r.started}): stop that run first (if no such run is training, delete ${join(runDir, LOCK_FILE)})`;
}

/**
 * Takes the lock of `runDir` for this process: created atomically with its record (a hard link
 * of a complete temporary file), or replacing a stale one.
 * @throws Error naming the holder when a live process holds it; Error naming the file when it
 *   cannot be written (permissions, full disk).
 */
export function acquireRunLock(runDir: string, now = new Date()): RunLock {
  const path = join(runDir, LOCK_FILE);
  const tmp = tempNameFor(path);
  const record: LockRecord = { pid: process.pid, hostname: hostname(), started: now.toISOString() };
  let holder: LockRecord | undefined;
  try {
    writeNewFile(tmp, `${JSON.stringify(record)}\n`);
    if (!linkIfAbsent(tmp, path)) {
      holder = readLock(path);
      if (!holder || !holderLive(holder)) {
        holder = undefined;
        renameSync(tmp, path); // a stale lock: replaced in one step
      }
    }
  } catch (e) {
    throw new Error(`cannot lock ${runDir}: ${fsCause(e)}`, { cause: e });
  } finally {
    rmSync(tmp, { force: true });
  }
  if (holder) throw new Error(liveMessage(runDir, holder));
  return {
    path,
    release() {
      try {
        if (readLock(path)?.pid === process.pid) rmSync(path, { force: true });
      } catch {
        /* a run folder that went away (or cannot be written) has nothing to release */
      }
    },
  };
}

/**
 * Why `runDir` may not be renamed, deleted or resumed now: the sentence naming the process that
 * trains it, or undefined when no live process holds its lock.
 */
export function runLockHolder(runDir: string): string | undefined {
  const holder = readLock(join(runDir, LOCK_FILE));
  return holder && holderLive(holder) ? liveMessage(runDir, holder) : undefined;
}
