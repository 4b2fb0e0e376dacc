// Crash-safe file writes: write a temporary file beside the target, fsync it, rename it over the
// target, fsync the folder. A reader sees the old file or the new one, never half of one; a
// failed write (full disk) removes the temporary file and leaves the old file as it was.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` atomically.
 * @throws Error naming the path and the cause (e.g. ENOSPC: "no space left on device"); the
 *   previous content of `path`, if any, is unchanged.
 */
export function writeFileAtomic(path: string, data: Uint8Array | string): void {
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}`);
  try {
    const fd = openSync(tmp, 'w', 0o644);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let off = 0;
      while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new Error(`could not write ${path}: ${(e as Error).message}; the previous file (if any) is unchanged`, { cause: e });
  }
  syncFolder(dirname(path));
}

function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
