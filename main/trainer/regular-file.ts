// Run files are opened without following a symbolic link and used only when they are regular
// files (issue 26 item 6): a FIFO planted as live.lock would block the host on every page load,
// a config.json or run-id linked to another file would quote that file in error messages, and
// an events.log linked elsewhere would be appended to. Opening with O_NOFOLLOW | O_NONBLOCK and
// checking the descriptor (fstat) decides on the file actually opened, so no check-then-open race.
import { closeSync, constants, fstatSync, openSync, read, readSync, writeSync } from 'node:fs';

/** Where the platform has them (Linux, macOS); elsewhere 0: links are followed there. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NO_WAIT = constants.O_NONBLOCK ?? 0; // a FIFO opens at once (and is then refused) instead of waiting for a writer
const READ = constants.O_RDONLY | NO_FOLLOW | NO_WAIT;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW | NO_WAIT;

/** The error for a path that exists but is a link, a folder, a FIFO or a device. */
function notRegular(path: string, e?: unknown): Error {
  const link = (e as NodeJS.ErrnoException | undefined)?.code === 'ELOOP';
  return new Error(`${path} is ${link ? 'a symbolic link' : 'not a regular file'}: run files are read and written only as regular files, never through links`);
}

/** openSync with the no-follow flags; a link becomes notRegular. */
function openNoFollow(path: string, flags: number): number {
  try {
    return openSync(path, flags, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw notRegular(path, e);
    throw e;
  }
}

/** Closes `fd` and throws when it is not a regular file; returns its size otherwise. */
function regularSize(fd: number, path: string): number {
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw notRegular(path);
  }
  return st.size;
}

/**
 * The bytes of the regular file `path`, or undefined when it does not exist.
 * @throws Error when it is a link or not a regular file, or larger than `maxBytes` (the message
 *   names the file and the limit, never its content); fs errors otherwise.
 */
export function readRegularFile(path: string, maxBytes: number): Buffer | undefined {
  const file = openRegularFile(path);
  if (!file) return undefined;
  const { fd, size } = file;
  try {
    if (size > maxBytes) throw new Error(`${path} holds ${size} bytes, more than the ${maxBytes} such a file may hold`);
    const buf = Buffer.alloc(size);
    let off = 0;
    for (let n = -1; off < size && n !== 0; off += n) n = readSync(fd, buf, off, size - off, off);
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** readRegularFile as UTF-8 text. */
export function readRegularText(path: string, maxBytes: number): string | undefined {
  return readRegularFile(path, maxBytes)?.toString('utf8');
}

/**
 * Appends `data` to the regular file `path`, creating it when missing.
 * @throws Error when `path` is a link or not a regular file; fs errors (full disk) otherwise.
 */
export function appendRegularFile(path: string, data: string | Uint8Array): void {
  const fd = openNoFollow(path, APPEND);
  try {
    regularSize(fd, path);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let off = 0; off < bytes.byteLength; ) off += writeSync(fd, bytes, off, bytes.byteLength - off);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens the regular file `path` for reading now (its size is fixed at this moment).
 * @returns its descriptor (the caller closes it) and size, or undefined when it does not exist.
 * @throws Error when it is a link or not a regular file.
 */
export function openRegularFile(path: string): { fd: number; size: number } | undefined {
  let fd: number;
  try {
    fd = openNoFollow(path, READ);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return { fd, size: regularSize(fd, path) };
}

/** Bytes read per step by lineChunks: about 10,000 metrics records, a few ms of parsing. */
export const CHUNK_BYTES = 1 << 20;

/** Lines of a file and the byte offset just past the last one that ended with a newline. */
export interface LineChunk {
  lines: string[];
  /** Offset after the chunk's last complete line (a resumed read starts there). */
  end: number;
}

/**
 * The lines of the regular file `path` from byte `from` to its size when this is called (later
 * appends are not read), in chunks of about CHUNK_BYTES read off the event loop: between chunks
 * timers, heartbeats and other messages run. A last line without a newline comes last (a torn
 * record: the caller's parser skips it) and is not counted in `end`. Returns an empty sequence
 * when the file does not exist. Iterate it to the end or break out of it: it holds the file open.
 * @throws Error when `path` is a link or not a regular file.
 */
export function lineChunks(path: string, from = 0): AsyncGenerator<LineChunk> {
  const file = openRegularFile(path);
  return readLines(file, from);
}

async function* readLines(file: { fd: number; size: number } | undefined, from: number): AsyncGenerator<LineChunk> {
  if (!file) return;
  const { fd, size } = file;
  try {
    let pos = from;
    let carry = Buffer.alloc(0);
    while (pos < size) {
      const buf = Buffer.alloc(Math.min(CHUNK_BYTES, size - pos));
      const bytesRead = await readAt(fd, buf, pos);
      if (bytesRead === 0) break; // the file was cut meanwhile
      pos += bytesRead;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      const nl = data.lastIndexOf(0x0a);
      carry = nl < 0 ? data : data.subarray(nl + 1);
      if (nl >= 0) yield { lines: data.subarray(0, nl).toString('utf8').split('\n'), end: pos - carry.length };
    }
    if (carry.length) yield { lines: [carry.toString('utf8')], end: pos - carry.length };
  } finally {
    closeSync(fd);
  }
}

/** Reads `buf.length` bytes at `pos` on libuv's thread pool; resolves with the count read. */
function readAt(fd: number, buf: Buffer, pos: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, buf.length, pos, (e, n) => (e ? reject(e) : resolve(n))));
}
