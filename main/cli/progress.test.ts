import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCALAR_NAMES } from '../../common/run.ts';
import { formatDuration, ProgressLine } from './progress.ts';

/** A non-TTY stream that keeps what is written. */
function sink(): { out: NodeJS.WriteStream; lines: string[] } {
  const lines: string[] = [];
  const out = { isTTY: false, write: (s: string) => (lines.push(s.trimEnd()), true) } as unknown as NodeJS.WriteStream;
  return { out, lines };
}

const point = (step: number, wall_s: number) => ({ step, wall_s, values: { [SCALAR_NAMES.loss]: 0.25 } });

test('the progress line shows no rate and no ETA until two reads a second apart give them, then the rate and the time left', () => {
  const { out, lines } = sink();
  const p = new ProgressLine(out, 1000);
  p.message('start'); // forces a draw: nothing yet (no step)
  p.scalars([point(100, 1)]);
  p.message('first read');
  assert.match(lines.at(-1)!, /^step 100\/1000 \| - steps\/s \| loss 0\.2500 \| return - \| ETA -$/);
  p.scalars([point(300, 3)]); // 200 steps in 2 s
  p.message('second read');
  assert.match(lines.at(-1)!, /^step 300\/1000 \| 100 steps\/s \| .* \| ETA 7s$/); // 700 steps left at 100/s
  p.scalars([point(1000, 10)]);
  p.message('last read');
  assert.match(lines.at(-1)!, /\| ETA 0s$/);
});

test('formatDuration writes hours and minutes, minutes and seconds, or seconds; ? for nonsense', () => {
  assert.equal(formatDuration(42.4), '42s');
  assert.equal(formatDuration(185), '3m05s');
  assert.equal(formatDuration(3720), '1h02m');
  assert.equal(formatDuration(-1), '?');
  assert.equal(formatDuration(Number.NaN), '?');
});
