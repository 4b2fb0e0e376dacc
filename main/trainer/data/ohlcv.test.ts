import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadOhlcv, OhlcvError, parseTimestamp } from './ohlcv.ts';

const dir = mkdtempSync(join(tmpdir(), 'ohlcv-'));
function csv(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

const HEADER = 'timestamp,open,high,low,close,volume';
const ok = (minute: number): string => `2024-01-02T00:${String(minute).padStart(2, '0')}:00Z,1,1.2,0.9,1.1,10`;

// Every kind of bad row, with its file line number and the words its message must contain.
const BAD: [number, string, RegExp][] = [
  [3, '2024-01-02T00:01:00Z,1,1.2,0.9', /missing fields close, volume \(got 4 of 6\)/],
  [4, '2024-01-02T00:02:00Z,1,abc,0.9,1.1,10', /high 'abc' is not a number/],
  [5, '2024-01-02T00:03:00Z,1,1.2,0.9,NaN,10', /close 'NaN' is not a number/],
  [6, '2024-01-02T00:04:00Z,1,1.2,0.9,1e999,10', /close '1e999' is not finite/],
  [7, '2024-01-02T00:05:00Z,1,1.2,0.9,1.1,', /volume '' is not a number/],
  [8, '2024-01-02T00:06:00Z,0,1.2,0.9,1.1,10', /open 0 must be > 0/],
  [9, '2024-01-02T00:07:00Z,1,1.2,-0.9,1.1,10', /low -0.9 must be > 0/],
  [10, '2024-01-02T00:08:00Z,1,1.2,0.9,1.1,-5', /volume -5 must be >= 0/],
  [11, '2024-01-02T00:09:00Z,1,0.8,0.9,0.85,10', /high 0.8 is below low 0.9/],
  [12, '2024-01-02T00:10:00Z,1,1.05,0.9,1.1,10', /high 1.05 is below close 1.1/],
  [13, '2024-01-02T00:11:00Z,1.1,1.05,0.9,1,10', /high 1.05 is below open 1.1/],
  [14, '2024-01-02T00:12:00Z,1,1.2,1.05,1.1,10', /low 1.05 is above open 1/],
  [15, '2024-01-02T00:13:00Z,1.1,1.2,1.05,1,10', /low 1.05 is above close 1/],
  [17, '2024-01-02T00:20:00Z,1,1.2,0.9,1.1,10', /duplicate timestamp 2024-01-02T00:20:00Z \(same as line 16\)/],
  [18, '2024-01-02T00:19:00Z,1,1.2,0.9,1.1,10', /timestamp 2024-01-02T00:19:00Z is before the one on line 16: rows must be sorted ascending/],
  [19, '2024-01-02 00:21:00,1,1.2,0.9,1.1,10', /timestamp '2024-01-02 00:21:00' is not ISO-8601 with a zone/],
  [20, '2024-02-30,1,1.2,0.9,1.1,10', /timestamp '2024-02-30' is not ISO-8601/],
  [21, '2024-01-02T00:22:00Z,1,1.2,0.9,1.1,10,3', /7 fields, expected 6/],
];

function badFile(): string {
  // Good rows: line 2 (00:00), line 16 (00:20, the row the duplicate and the unsorted one follow), line 22.
  const lines = [HEADER, ok(0)];
  for (const [line, row] of BAD) {
    if (line === 17) lines.push(ok(20));
    assert.equal(lines.length + 1, line);
    lines.push(row);
  }
  lines.push(ok(50));
  return csv('bad.csv', lines);
}

test('skip drops every kind of bad row and reports it with its file line number', () => {
  const { bars, problems, skipped } = loadOhlcv(badFile(), { badRows: 'skip' });
  assert.deepEqual(problems.map((p) => p.line), BAD.map(([line]) => line));
  BAD.forEach(([line, , words], i) => assert.match(problems[i]!.message, words, `line ${line}`));
  assert.equal(skipped, BAD.length);
  assert.deepEqual([...bars.timestamps], [0, 20, 50].map((m) => Date.UTC(2024, 0, 2, 0, m) / 1000));
  assert.deepEqual([...bars.close], [1.1, 1.1, 1.1]);
  for (const k of ['open', 'high', 'low', 'volume'] as const) assert.equal(bars[k].length, 3);
});

test('refuse throws an error listing the bad rows with line numbers and their count', () => {
  const path = badFile();
  assert.throws(() => loadOhlcv(path), (err: unknown) => {
    assert.ok(err instanceof OhlcvError);
    assert.match(err.message, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 18 bad rows \\(bad_rows is 'refuse'`));
    assert.match(err.message, /\n {2}line 3: missing fields close, volume/);
    assert.match(err.message, /\n {2}line 21: 7 fields, expected 6/);
    assert.equal(err.problems.length, 18);
    return true;
  });
});

test('a refused file with many bad rows lists the first 20 and counts the rest', () => {
  const lines = [HEADER, ...Array.from({ length: 25 }, (_, i) => `2024-01-02T01:${String(i).padStart(2, '0')}:00Z,1,1.2,0.9,1.1,-1`)];
  assert.throws(() => loadOhlcv(csv('many.csv', lines), { badRows: 'refuse' }), (err: unknown) => {
    assert.ok(err instanceof OhlcvError);
    assert.match(err.message, /25 bad rows/);
    assert.match(err.message, /line 21: volume -1 must be >= 0\n {2}\.\.\. and 5 more$/);
    assert.doesNotMatch(err.message, /line 22:/);
    return true;
  });
});

test('a wrong header, a missing file, an empty file and a file with no valid bar are refused', () => {
  for (const badRows of ['refuse', 'skip'] as const)
    assert.throws(() => loadOhlcv(csv('header.csv', ['time,open,high,low,close,volume', ok(0)]), { badRows }),
      /line 1: header must be 'timestamp,open,high,low,close,volume', got 'time,open,high,low,close,volume'/);
  assert.throws(() => loadOhlcv(csv('short-header.csv', ['timestamp,open,high,low,close', ok(0)])), /line 1: header must be/);
  assert.throws(() => loadOhlcv(join(dir, 'nope.csv')), { name: 'OhlcvError', message: `OHLCV file not found: ${join(dir, 'nope.csv')}` });
  assert.throws(() => loadOhlcv(csv('empty.csv', [])), /the file is empty/);
  assert.throws(() => loadOhlcv(csv('only-bad.csv', [HEADER, '2024-01-02,1,1,1,1,-1']), { badRows: 'skip' }), /no valid bars \(1 bad rows\)/);
});

test('a quote never closed is refused at the line that opened it, not at the end of the file', () => {
  const rows = [HEADER, ok(0), ok(1), '2024-01-02T00:02:00Z,1,"1.2,0.9,1.1,10', ...Array.from({ length: 30 }, (_, k) => ok(k + 3))];
  for (const badRows of ['refuse', 'skip'] as const)
    assert.throws(() => loadOhlcv(csv('quote.csv', rows), { badRows }), {
      name: 'OhlcvError',
      message: `${join(dir, 'quote.csv')}: line 4: a quote (") opens a field and is never closed, so the rest of the file reads as one field: OHLCV fields need no quotes, remove it`,
    });
  // A quoted field that closes ("" inside it is a quote) is plain CSV: that row is judged by its fields.
  assert.throws(() => loadOhlcv(csv('quoted.csv', [HEADER, ok(0), '2024-01-02T00:01:00Z,1,"1.""2",0.9,1.1,10', ok(2)])), /line 3: high '1."2' is not a number/);
});

test('timestamps: ISO-8601 with a zone and daily dates become Unix seconds', () => {
  assert.equal(parseTimestamp('1999-11-01'), 941414400);
  assert.equal(parseTimestamp('2024-01-01T23:01:00Z'), 1704150060);
  assert.equal(parseTimestamp('2024-01-02T01:00:00+01:00'), parseTimestamp('2024-01-02T00:00:00Z'));
  assert.equal(parseTimestamp('2024-01-01T18:30-05:00'), parseTimestamp('2024-01-01T23:30:00Z'));
  assert.equal(parseTimestamp('2024-01-02T00:00:00.25Z'), 1704153600.25);
  assert.equal(parseTimestamp('2024-02-29'), Date.UTC(2024, 1, 29) / 1000);
  for (const bad of ['2023-02-29', '2024-13-01', '2024-01-02T24:00:00Z', '2024-01-02T00:00:00', '02/01/2024', '']) assert.equal(parseTimestamp(bad), undefined, bad);
});

test('the bundled 6E file loads with 29,996 bars and no problems', () => {
  const { bars, problems, skipped } = loadOhlcv(resolve('resources/data/6EH4_cme_1m_2024-01.csv'));
  assert.equal(bars.close.length, 29_996);
  assert.deepEqual(problems, []);
  assert.equal(skipped, 0);
  assert.equal(bars.timestamps[0], Date.UTC(2024, 0, 1, 23, 1) / 1000);
  assert.equal(bars.timestamps[29_995], Date.UTC(2024, 0, 31, 23, 59) / 1000);
  assert.deepEqual([bars.open[0], bars.high[0], bars.low[0], bars.close[0], bars.volume[0]], [1.1076, 1.10785, 1.1076, 1.1078, 205]);
});

test('the bundled SPY daily file loads with 5,241 bars and no problems', () => {
  const { bars, problems } = loadOhlcv(resolve('resources/data/spy_1d_1999-2020.csv'), { badRows: 'refuse' });
  assert.equal(bars.close.length, 5241);
  assert.deepEqual(problems, []);
  assert.equal(bars.timestamps[0], Date.UTC(1999, 10, 1) / 1000);
  assert.equal(bars.close[0], 135.5625);
});
