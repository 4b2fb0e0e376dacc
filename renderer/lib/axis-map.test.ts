import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AxisMap, MAX_SAMPLES } from './axis-map.ts';

test('steps, env steps and wall time convert into each other by interpolation, past the ends by the nearest two samples', () => {
  const m = new AxisMap();
  m.addWall(0, 0);
  m.addWall(1000, 10);
  m.addWall(3000, 20); // faster after 10 s
  m.addEnv(500, 4000);
  m.addEnv(1000, 8000);
  assert.equal(m.convert('step', 'wall', 500), 5);
  assert.equal(m.convert('step', 'wall', 2000), 15);
  assert.equal(m.convert('step', 'wall', 5000), 30, 'extrapolated with the last rate');
  assert.equal(m.convert('wall', 'step', 15), 2000);
  assert.equal(m.convert('env', 'step', 6000), 750);
  assert.equal(m.convert('env', 'wall', 8000), 10);
  assert.equal(m.convert('step', 'env', 2000), 16000);
  assert.equal(m.convert('step', 'step', 123), 123);
});

test('out-of-order and non-finite samples are ignored; the tables stay bounded', () => {
  const m = new AxisMap();
  m.addWall(10, 1);
  m.addWall(5, 100);
  m.addWall(20, NaN);
  assert.equal(m.convert('step', 'wall', 20), 2, 'one sample: proportional (every run starts at 0)');
  for (let i = 0; i < 3 * MAX_SAMPLES; i++) m.addWall(100 + i, i / 10);
  assert.ok(m.size <= MAX_SAMPLES, `${m.size} samples`);
  assert.ok(Math.abs(m.convert('step', 'wall', 100 + 3 * MAX_SAMPLES - 1) - (3 * MAX_SAMPLES - 1) / 10) < 1e-9, 'the newest samples are exact');
});

test('before its first sample every x maps to the run start, never to the same number on another axis (issue 26 item 10)', () => {
  const m = new AxisMap();
  assert.equal(m.convert('env', 'step', 4000), 0);
  assert.equal(m.convert('step', 'env', 500), 0);
  assert.equal(m.convert('wall', 'step', 3), 0);
});

test('env steps collected before the first gradient step map to step 0; later ones interpolate', () => {
  const m = new AxisMap();
  m.addEnv(0, 600); // system samples during learning_starts: the step stays 0
  m.addEnv(0, 1000);
  m.addEnv(100, 1400);
  assert.equal(m.convert('env', 'step', 500), 0);
  assert.equal(m.convert('env', 'step', 1000), 0);
  assert.equal(m.convert('env', 'step', 1200), 50);
  assert.equal(m.convert('step', 'env', 50), 1200);
  m.addEnv(100, 1300); // a value going back is not a sample
  assert.equal(m.convert('step', 'env', 100), 1400);
});
