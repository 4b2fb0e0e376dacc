import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { pollWhile, SWEEP_POLL_MS } from './poll.ts';

test('pollWhile ticks every interval while active, never when not, and stops at its cleanup', () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    let ticks = 0;
    const stop = pollWhile(true, SWEEP_POLL_MS, () => ticks++);
    mock.timers.tick(SWEEP_POLL_MS - 1);
    assert.equal(ticks, 0, 'not before the first interval');
    mock.timers.tick(1);
    assert.equal(ticks, 1);
    mock.timers.tick(2 * SWEEP_POLL_MS);
    assert.equal(ticks, 3);
    stop();
    mock.timers.tick(10 * SWEEP_POLL_MS);
    assert.equal(ticks, 3, 'the cleanup stops it');
    let idle = 0;
    pollWhile(false, SWEEP_POLL_MS, () => idle++)();
    mock.timers.tick(10 * SWEEP_POLL_MS);
    assert.equal(idle, 0, 'inactive: no tick');
  } finally {
    mock.timers.reset();
  }
});
