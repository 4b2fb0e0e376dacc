import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameBuilder } from './frame-builder.ts';
import { FRAME_SERIES, FrameSchema, MAX_FRAME_EVENTS } from './protocol.ts';
import type { RunEvent } from './run.ts';

const epoch = (n: number) => ({ epoch: n, step: 500 * n, env_steps: 4000 * n, epoch_time_s: n === 7 ? 9 : 0.5, steps_per_s: 1000 / n, eval_mean_return: 10 * n, eval_episodes: 2, eval_metrics: { sharpe: n / 10 } });

test('a frame of 200 epochs and 100,000 scalar reads is as large as a frame of one', () => {
  const size = (reads: number, epochs: number) => {
    const b = new FrameBuilder('/runs/r');
    for (let i = 1; i <= reads; i++) b.addScalars([{ step: i, wall_s: i / 1e5, values: { 'losses/td_loss': 1 / i, 'q/mean': i % 13 } }]);
    for (let e = 1; e <= epochs; e++) b.addEpoch(epoch(e));
    const f = FrameSchema.parse(b.take());
    return { f, bytes: JSON.stringify(f).length };
  };
  const one = size(1, 1);
  const many = size(100_000, 200);
  assert.ok(many.bytes < one.bytes * 1.5, `${many.bytes} bytes vs ${one.bytes}`);
  const f = many.f;
  assert.deepEqual(f.steps, { from: 1, to: 100_000 });
  assert.equal(f.epochsEnded, 200);
  assert.equal(f.lastEpoch?.epoch, 200);
  assert.deepEqual(f.progress, { step: 100_000, env_steps: 800_000, epoch: 200, wall_s: 1 });
  const t = f.series[FRAME_SERIES.epochTime]!;
  assert.deepEqual([t.x0, t.x1, t.n, t.max, t.last], [1, 200, 200, [7, 9], 0.5], 'the one slow epoch stays visible as the maximum');
  assert.deepEqual(f.series[FRAME_SERIES.evalReturn]!.max, [800_000, 2000]);
  assert.deepEqual(f.series['eval/sharpe']!.min, [4000, 0.1]);
  const loss = f.series['losses/td_loss']!;
  assert.deepEqual([loss.min, loss.max, loss.last], [[100_000, 1e-5], [1, 1], 1e-5]);
  let sum = 0;
  for (let i = 1; i <= 100_000; i++) sum += 1 / i;
  assert.ok(Math.abs(loss.mean! - sum / 100_000) < 1e-12);
});

test('each frame covers only what arrived since the previous one, numbered in order; an empty period sends nothing', () => {
  const b = new FrameBuilder('/runs/r');
  assert.equal(b.take(), undefined);
  b.addScalars([{ step: 5, wall_s: 1, values: { 'losses/td_loss': 'Infinity' } }]);
  const f1 = b.take()!;
  assert.deepEqual(f1.series['losses/td_loss'], { x0: 5, x1: 5, n: 1, last: 'Infinity', nonFinite: { x: 5, value: 'Infinity' } });
  assert.equal(b.take(), undefined);
  b.addEpisodes([{ step: 90, value: 3 }]);
  const f2 = b.take()!;
  assert.deepEqual([f1.seq, f2.seq], [1, 2]);
  assert.deepEqual(Object.keys(f2.series), [FRAME_SERIES.episodicReturn]);
  assert.equal(f2.steps, undefined, 'no scalar read, no step range');
  assert.equal(f2.progress?.step, 5, 'the counters carry over');
});

test('events beyond the cap are counted, and a halt displaces a routine checkpoint event', () => {
  const b = new FrameBuilder('/runs/r');
  const ev = (kind: RunEvent['kind'], i: number): RunEvent => ({ time: `t${i}`, kind, message: `${kind} ${i}` });
  for (let i = 0; i < 500; i++) b.addEvent(ev('checkpoint', i));
  b.addEvent(ev('halt', 500));
  const f = FrameSchema.parse(b.take());
  assert.equal(f.events.length, MAX_FRAME_EVENTS);
  assert.equal(f.eventsOmitted, 500 + 1 - MAX_FRAME_EVENTS);
  assert.deepEqual(f.events.at(-1), ev('halt', 500));
  assert.deepEqual(f.events.slice(0, MAX_FRAME_EVENTS - 1).map((e) => e.message), Array.from({ length: MAX_FRAME_EVENTS - 1 }, (_, i) => `checkpoint ${i}`));
});
