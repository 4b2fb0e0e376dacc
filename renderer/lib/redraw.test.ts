import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RedrawScheduler } from './redraw.ts';

/** A chart whose data version the test bumps; it records when it was redrawn. */
function chart(name: string, log: string[], visible = true) {
  let version = 1;
  let drawn = 0;
  const c = {
    shown: visible,
    bump: () => void version++,
    visible: () => c.shown,
    changed: () => drawn !== version,
    redraw: () => {
      drawn = version;
      log.push(name);
    },
  };
  return c;
}

test('charts redraw at most once per animation frame, one per frame in turn, only when visible and changed', () => {
  const frames: (() => void)[] = [];
  const s = new RedrawScheduler((cb) => frames.push(cb), 1);
  const log: string[] = [];
  const a = chart('a', log);
  const b = chart('b', log);
  const hidden = chart('hidden', log, false);
  s.register(a);
  s.register(b);
  s.register(hidden);
  assert.equal(frames.length, 1, 'one animation frame asked for, however many invalidations');
  s.invalidate();
  frames.shift()!();
  assert.deepEqual(log, ['a']);
  assert.equal(frames.length, 1, 'b waits for the next frame');
  frames.shift()!();
  assert.deepEqual(log, ['a', 'b']);
  assert.equal(frames.length, 0, 'nothing left to draw: no frame asked for');

  s.invalidate();
  frames.shift()!();
  assert.deepEqual(log, ['a', 'b'], 'unchanged charts are not redrawn');

  b.bump();
  a.bump();
  s.invalidate();
  frames.shift()!();
  frames.shift()!();
  assert.deepEqual(log.slice(2), ['a', 'b']);
  assert.equal(frames.length, 0);

  hidden.shown = true;
  s.invalidate();
  frames.shift()!();
  assert.deepEqual(log.slice(4), ['hidden'], 'a chart that comes into view draws its data then');
  assert.equal(s.redraws, 5);
});

test('a chart that keeps changing does not starve the others', () => {
  const frames: (() => void)[] = [];
  const s = new RedrawScheduler((cb) => frames.push(cb), 1);
  const log: string[] = [];
  const cs = ['a', 'b', 'c'].map((n) => chart(n, log));
  cs.forEach((c) => s.register(c));
  for (let f = 0; f < 6; f++) {
    cs[0]!.bump();
    s.invalidate();
    frames.shift()!();
  }
  assert.deepEqual(log, ['a', 'b', 'c', 'a', 'a', 'a']);
  assert.throws(() => new RedrawScheduler(() => 0, 0), /perFrame must be at least 1/);
});

test('after a slow redraw the next one waits, so chart rendering keeps to its share of the main thread', () => {
  const frames: (() => void)[] = [];
  let t = 0;
  const s = new RedrawScheduler((cb) => frames.push(cb), 1, 0.25, () => t);
  const log: string[] = [];
  const a = chart('a', log);
  s.register(a);
  frames.shift()!();
  assert.deepEqual(log, ['a']);
  s.rendered(40); // 40 ms at t = 0: quiet for 40 * (1 / 0.25 - 1) = 120 ms
  a.bump();
  s.invalidate();
  for (t = 16; t < 120; t += 16) {
    frames.shift()!();
    assert.deepEqual(log, ['a'], `no redraw at ${t} ms`);
    assert.equal(frames.length, 1, 'it keeps looking');
  }
  t = 128;
  frames.shift()!();
  assert.deepEqual(log, ['a', 'a']);
  assert.equal(frames.length, 0);
  assert.throws(() => new RedrawScheduler(() => 0, 1, 0), /share must be in \(0, 1\]/);
});
