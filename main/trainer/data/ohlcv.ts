// OHLCV CSV loader for the trading environment (DESIGN section 7): reads a
// `timestamp,open,high,low,close,volume` file, checks every row, and returns the bars as the
// Float64Arrays the native addon takes (native/trainer.ts MarketArrays). Bad rows are reported
// with their 1-based file line numbers; the caller chooses to refuse the file or skip them.
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parse } from 'csv-parse/sync';
import type { MarketArrays } from '../../../native/trainer.ts';
import { InputError } from '../input-error.ts';
import { clipText } from '../paths-policy.ts';

/** The only accepted header (case-insensitive, surrounding spaces ignored). */
export const OHLCV_HEADER = ['timestamp', 'open', 'high', 'low', 'close', 'volume'] as const;

/** One bad row: its 1-based line in the file and what is wrong with it. */
export interface OhlcvProblem {
  line: number;
  message: string;
}

/** What to do with a bad row: 'refuse' the whole file, or 'skip' the row and report it. */
export type BadRowPolicy = 'refuse' | 'skip';

/** Options of loadOhlcv. */
export interface LoadOhlcvOptions {
  /** Default 'refuse'. */
  badRows?: BadRowPolicy;
  /** Largest file size read (default MAX_OHLCV_BYTES). */
  maxBytes?: number;
}

/** Result of loadOhlcv. */
export interface LoadedOhlcv {
  /** The accepted bars, strictly increasing timestamps (Unix seconds, UTC). */
  bars: MarketArrays;
  /** One entry per bad row, in file order (always empty in 'refuse' mode, which throws instead). */
  problems: OhlcvProblem[];
  /** Number of rows dropped ('skip' mode); equals problems.length. */
  skipped: number;
}

/** How many problems the error message of a refused file lists. */
const SHOWN_PROBLEMS = 20;

/**
 * Largest OHLCV file read (checked before reading). 256 MiB is ~4 million 1-minute bars, and
 * stays below V8's longest string (~512 Mi characters), which the text must fit in.
 */
export const MAX_OHLCV_BYTES = 256 * 1024 * 1024;

/**
 * A file that cannot be used (an InputError: the CLIs exit 2): missing, unreadable, wrong header, no bars, or (policy 'refuse')
 * bad rows. `problems` holds every bad row found (the message shows the first 20).
 */
export class OhlcvError extends InputError {
  constructor(message: string, readonly problems: OhlcvProblem[] = []) {
    super(message);
    this.name = 'OhlcvError';
  }
}

/**
 * Loads and validates an OHLCV CSV file.
 *
 * Format: header `timestamp,open,high,low,close,volume`; timestamps are ISO-8601 with an explicit
 * zone (`2024-01-02T09:30:00Z`, `...+01:00`; fractional seconds allowed) or a trading date
 * (`2024-01-02`, read as 00:00 UTC). Numbers are plain decimals (`1.1076`, `4006500.0`, `1e3`).
 * Empty lines are ignored.
 *
 * A row is bad when: a field is missing or extra; the timestamp does not parse; a number does not
 * parse or is NaN/Inf; a price is <= 0; the volume is < 0; high < low; high < open or close;
 * low > open or close; its timestamp equals (duplicate) or precedes (unsorted) the timestamp of
 * the last accepted row. All problems of one row are reported in one message.
 *
 * @param path file path (relative paths resolve against the current directory).
 * @param options badRows: 'refuse' (default) throws if any row is bad;
 *   'skip' drops bad rows and returns them in `problems`.
 * @returns the bars (Float64Arrays of equal length; timestamps in Unix seconds) and the problems.
 * @throws OhlcvError when the file is missing or unreadable, the header is wrong, there are bad
 *   rows under 'refuse' (the message lists the first 20 with their line numbers, and the count),
 *   or no row is left.
 */
export function loadOhlcv(path: string, options: LoadOhlcvOptions = {}): LoadedOhlcv {
  const file = resolve(path);
  return parseOhlcv(readOhlcvText(file, options.maxBytes ?? MAX_OHLCV_BYTES), file, options.badRows ?? 'refuse');
}

/**
 * The text of a CSV file, refused before reading when it is not a regular file (a device, a
 * FIFO, a folder) or larger than `maxBytes`, and after reading when it holds a NUL byte or is
 * not valid UTF-8 ("not a text CSV file"). Opened non-blocking and checked again on the open
 * file, so a FIFO swapped in after the first check cannot block the read.
 * @throws OhlcvError saying which.
 */
export function readOhlcvText(file: string, maxBytes = MAX_OHLCV_BYTES): string {
  const cannot = (err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return new OhlcvError(`OHLCV file not found: ${file}`);
    return new OhlcvError(`cannot read OHLCV file ${file}: ${(err as Error).message}`);
  };
  const check = (st: { isFile(): boolean; size: number }) => {
    if (!st.isFile()) throw new OhlcvError(`${file}: not a regular file (a CSV file is needed)`);
    if (st.size > maxBytes) throw new OhlcvError(`${file}: ${st.size} bytes, more than the ${maxBytes} bytes an OHLCV file may have`);
  };
  let fd: number;
  try {
    check(statSync(file));
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw err instanceof OhlcvError ? err : cannot(err);
  }
  let bytes: Buffer;
  try {
    check(fstatSync(fd));
    bytes = readFileSync(fd);
  } catch (err) {
    throw err instanceof OhlcvError ? err : cannot(err);
  } finally {
    closeSync(fd);
  }
  if (bytes.length > maxBytes) throw new OhlcvError(`${file}: more than the ${maxBytes} bytes an OHLCV file may have`);
  if (bytes.includes(0)) throw new OhlcvError(`${file}: not a text CSV file (it holds NUL bytes)`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new OhlcvError(`${file}: not a text CSV file (it is not valid UTF-8)`);
  }
}

/** The worker entry beside this module: the .ts source under tsx, the bundled .js in the app. */
const WORKER_FILE = (() => {
  const self = fileURLToPath(import.meta.url);
  return self.endsWith('.ts') ? join(dirname(self), 'ohlcv-worker.ts') : join(dirname(self), 'ohlcv-worker.js');
})();

/**
 * loadOhlcv on a worker thread, so reading and parsing a large file leaves the caller's event
 * loop free (the trainer host keeps answering). Same results and errors as loadOhlcv; the bar
 * arrays are transferred, not copied.
 */
export function loadOhlcvOffThread(path: string, options: LoadOhlcvOptions = {}): Promise<LoadedOhlcv> {
  const workerData = { path: resolve(path), options };
  // Under tsx (sources, tests) the worker registers tsx itself: Node 20 does not apply the
  // parent's --import hooks to a worker's entry file.
  const worker = WORKER_FILE.endsWith('.ts')
    ? new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((t) => { t.register(); return import(${JSON.stringify(pathToFileURL(WORKER_FILE).href)}); })`, { eval: true, workerData })
    : new Worker(WORKER_FILE, { workerData });
  return new Promise<LoadedOhlcv>((resolveLoad, reject) => {
    worker.once('message', (m: { ok: true; loaded: LoadedOhlcv } | { ok: false; message: string; problems: OhlcvProblem[] }) => {
      if (m.ok) resolveLoad(m.loaded);
      else reject(new OhlcvError(m.message, m.problems));
    });
    worker.once('error', (err) => reject(new OhlcvError(`cannot load OHLCV file ${path}: ${err.message}`)));
    worker.once('exit', (code) => reject(new OhlcvError(`cannot load OHLCV file ${path}: the loader thread exited (code ${code})`)));
  });
}

/** The line (from 1) of the quote left open at the end of `text`, or undefined when every quote closes. */
function unclosedQuoteLine(text: string): number | undefined {
  let open: number | undefined;
  let line = 1;
  for (const c of text) {
    if (c === '\n') line++;
    else if (c === '"') open = open === undefined ? line : undefined; // "" inside a quoted field closes and reopens
  }
  return open;
}

/**
 * Parses OHLCV CSV text (the body of loadOhlcv; `source` names the file in messages).
 * @throws OhlcvError as loadOhlcv does.
 */
export function parseOhlcv(text: string, source: string, policy: BadRowPolicy = 'refuse'): LoadedOhlcv {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // With `info: true` each record comes as {record, info}; csv-parse's typings do not model that.
    records = parse(text, { info: true, relax_column_count: true, skip_empty_lines: true, bom: true, trim: true }) as unknown as typeof records;
  } catch (err) {
    // csv-parse names the last line for a quote never closed: name the line that opened it.
    const opened = (err as { code?: string }).code === 'CSV_QUOTE_NOT_CLOSED' ? unclosedQuoteLine(text) : undefined;
    if (opened !== undefined) throw new OhlcvError(`${source}: line ${opened}: a quote (") opens a field and is never closed, so the rest of the file reads as one field: OHLCV fields need no quotes, remove it`);
    throw new OhlcvError(`${source}: not a readable CSV file: ${clipText((err as Error).message, 160)}`);
  }
  const header = records[0];
  if (!header) throw new OhlcvError(`${source}: the file is empty (expected the header ${OHLCV_HEADER.join(',')})`);
  const names = header.record.map((h) => h.toLowerCase());
  if (names.length !== OHLCV_HEADER.length || names.some((h, i) => h !== OHLCV_HEADER[i])) {
    throw new OhlcvError(`${source}: line ${header.info.lines}: header must be '${OHLCV_HEADER.join(',')}', got '${clipText(header.record.join(','))}'`);
  }

  const cols: number[][] = [[], [], [], [], [], []];
  const problems: OhlcvProblem[] = [];
  let lastTime = -Infinity;
  let lastLine = 0;
  for (let r = 1; r < records.length; r++) {
    const { record, info } = records[r]!;
    const issues = checkRow(record, lastTime, lastLine);
    if (issues.errors.length > 0) {
      problems.push({ line: info.lines, message: issues.errors.join('; ') });
      continue;
    }
    issues.values.forEach((v, i) => cols[i]!.push(v));
    lastTime = issues.values[0]!;
    lastLine = info.lines;
  }

  if (problems.length > 0 && policy === 'refuse') {
    const shown = problems.slice(0, SHOWN_PROBLEMS).map((p) => `  line ${p.line}: ${p.message}`);
    const more = problems.length > SHOWN_PROBLEMS ? `\n  ... and ${problems.length - SHOWN_PROBLEMS} more` : '';
    throw new OhlcvError(
      `${source}: ${problems.length} bad row${problems.length === 1 ? '' : 's'} (bad_rows is 'refuse'; use 'skip' to drop them):\n${shown.join('\n')}${more}`,
      problems,
    );
  }
  if (cols[0]!.length === 0) throw new OhlcvError(`${source}: no valid bars (${problems.length} bad rows)`, problems);
  const [timestamps, open, high, low, close, volume] = cols.map((c) => Float64Array.from(c)) as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
  return { bars: { timestamps, open, high, low, close, volume }, problems, skipped: problems.length };
}

/** Checks one data row; returns its values [time, open, high, low, close, volume] or the errors. */
function checkRow(record: string[], lastTime: number, lastLine: number): { values: number[]; errors: string[] } {
  const errors: string[] = [];
  if (record.length !== OHLCV_HEADER.length) {
    const missing = OHLCV_HEADER.slice(record.length);
    return {
      values: [],
      errors: [record.length < OHLCV_HEADER.length
        ? `missing field${missing.length === 1 ? '' : 's'} ${missing.join(', ')} (got ${record.length} of 6)`
        : `${record.length} fields, expected 6`],
    };
  }
  const time = parseTimestamp(record[0]!);
  if (time === undefined) errors.push(`timestamp '${clipText(record[0]!)}' is not ISO-8601 with a zone (YYYY-MM-DDTHH:MM:SSZ) or a date (YYYY-MM-DD)`);
  const nums = record.slice(1).map((s, i) => {
    const name = OHLCV_HEADER[i + 1]!;
    const x = parseDecimal(s);
    if (x === undefined) errors.push(`${name} '${clipText(s)}' is not a number`);
    else if (!Number.isFinite(x)) errors.push(`${name} '${clipText(s)}' is not finite`);
    else return x;
    return undefined;
  });
  const [open, high, low, close, volume] = nums;
  for (const [name, v] of [['open', open], ['high', high], ['low', low], ['close', close]] as const) {
    if (v !== undefined && v <= 0) errors.push(`${name} ${v} must be > 0`);
  }
  if (volume !== undefined && volume < 0) errors.push(`volume ${volume} must be >= 0`);
  if (high !== undefined && low !== undefined && high < low) errors.push(`high ${high} is below low ${low}`);
  if (high !== undefined && open !== undefined && high < open) errors.push(`high ${high} is below open ${open}`);
  if (high !== undefined && close !== undefined && high < close) errors.push(`high ${high} is below close ${close}`);
  if (low !== undefined && open !== undefined && low > open) errors.push(`low ${low} is above open ${open}`);
  if (low !== undefined && close !== undefined && low > close) errors.push(`low ${low} is above close ${close}`);
  if (time !== undefined && time === lastTime) errors.push(`duplicate timestamp ${clipText(record[0]!)} (same as line ${lastLine})`);
  if (time !== undefined && time < lastTime) errors.push(`timestamp ${clipText(record[0]!)} is before the one on line ${lastLine}: rows must be sorted ascending`);
  if (errors.length > 0) return { values: [], errors };
  return { values: [time!, ...(nums as number[])], errors };
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A plain decimal number (no hex, no 'NaN'/'Infinity', no empty string); undefined otherwise. */
function parseDecimal(s: string): number | undefined {
  return DECIMAL.test(s) ? Number(s) : undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Unix seconds of an ISO-8601 timestamp with a zone, or of a date (00:00 UTC); undefined if the
 * text is not one or names an impossible date/time (2024-02-30, 25:00).
 */
export function parseTimestamp(s: string): number | undefined {
  const d = DATE.exec(s) ?? DATETIME.exec(s);
  if (!d) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(d[i] ?? 0)) as [number, number, number, number, number, number];
  const fraction = d[7] ? Number(d[7]) : 0;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day) return undefined; // 2024-02-30 rolls over to March
  let offset = 0;
  const zone = d[8];
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offset = sign * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2)) * 60);
  }
  return ms / 1000 + fraction - offset;
}
