// Crash-safe file writes: write a temporary file beside the target, fsync it, rename it over the
// target, fsync the folder. A reader sees the old file or the new one, never half of one; a
// failed write (full disk) removes the temporary file and leaves the old file as it was. The
// temporary file is always a new file (O_EXCL, O_NOFOLLOW): a link planted at its name is
// removed, never written through (issue 26 item 6).
import { closeSync, constants, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isRealFolder } from './folders.ts';

const TMP_TAG = '.tmp-';
const TMP_NAME = /^\..+\.tmp-(\d+)$/;

/**
 * Writes `data` to `path` atomically.
 * @throws Error naming the path and the cause (e.g. ENOSPC: "no space left on device"); the
 *   previous content of `path`, if any, is unchanged.
 */
export function writeFileAtomic(path: string, data: Uint8Array | string): void {
  const tmp = tempNameFor(path);
  try {
    writeNewFile(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new Error(`could not write ${path}: ${(e as Error).message}; the previous file (if any) is unchanged`, { cause: e });
  }
  syncFolder(dirname(path));
}

/** A brand-new file only: fails (EEXIST, ELOOP) rather than open anything already at the name. */
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Writes `data` to a new file at `path` and fsyncs it. Whatever was at `path` (a stale temporary
 * file of a dead process with this pid, a planted link) is removed first, not written through.
 * @throws the fs error (full disk, permissions, EEXIST when something reappeared at `path`).
 */
export function writeNewFile(path: string, data: Uint8Array | string): void {
  rmSync(path, { force: true }); // unlinks a link itself, never its target
  const fd = openSync(path, NEW_FILE, 0o644);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let off = 0; off < bytes.byteLength; ) off += writeSync(fd, bytes, off, bytes.byteLength - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** This process's temporary file for `path` (removeStaleTemps removes it once the process is gone). */
export function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}${TMP_TAG}${process.pid}`);
}

function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Whether a process with this id is alive (this one included; EPERM: alive, another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files writeFileAtomic left in `dir` when a process died mid-write (one
 * of a live other process is kept: it may be writing). Call it before this process writes
 * there. A `dir` that is missing, or a link (a run's folders are never followed), is left alone.
 * Returns the names removed.
 */
export function removeStaleTemps(dir: string): string[] {
  if (!isRealFolder(dir)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    const m = TMP_NAME.exec(name);
    if (!m || (Number(m[1]) !== process.pid && processAlive(Number(m[1])))) continue; // another live process may be writing it
    rmSync(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

