import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnerTesting } from './helpers/learner.ts';

const lt = learnerTesting();

test('two Adam steps match Kingma & Ba (2015) Algorithm 1 computed by hand in float64', () => {
  const lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  const w = Float32Array.of(0.5, -1, 2), m = new Float32Array(3), v = new Float32Array(3);
  const grads = [Float32Array.of(0.1, -0.2, 3), Float32Array.of(-0.3, -0.2, 1)];
  const rw = [0.5, -1, 2], rm = [0, 0, 0], rv = [0, 0, 0];
  grads.forEach((g, step) => {
    const t = step + 1;
    lt.adamUpdate({ t, lr, beta1: b1, beta2: b2, eps, gradScale: 1, g, w, m, v });
    for (let i = 0; i < 3; i++) {
      rm[i] = b1 * rm[i]! + (1 - b1) * g[i]!;
      rv[i] = b2 * rv[i]! + (1 - b2) * g[i]! ** 2;
      const mHat = rm[i]! / (1 - b1 ** t), vHat = rv[i]! / (1 - b2 ** t);
      rw[i] = rw[i]! - lr * mHat / (Math.sqrt(vHat) + eps);
    }
  });
  for (let i = 0; i < 3; i++) {
    assert.ok(Math.abs(w[i]! - rw[i]!) < 1e-6, `w[${i}] = ${w[i]}, expected ${rw[i]}`);
    assert.ok(Math.abs(m[i]! - rm[i]!) < 1e-6 && Math.abs(v[i]! - rv[i]!) < 1e-7);
  }
  // The first step moves each weight by lr * g / |g| (to within eps): 0.5 - 0.01, -1 + 0.01, 2 - 0.01, then step 2.
  assert.ok(Math.abs(rw[0]! - (0.5 - 0.01 - 0.01 * ((0.9 * 0.01 - 0.03) / 0.19) / Math.sqrt((0.999 * 0.001 * 0.01 + 0.001 * 0.09) / (1 - 0.999 ** 2)))) < 1e-9);
});

test('the gradient scale (clip coefficient) multiplies g before both moments', () => {
  const g = Float32Array.of(2, -4);
  const a = { w: Float32Array.of(1, 1), m: new Float32Array(2), v: new Float32Array(2) };
  const b = { w: Float32Array.of(1, 1), m: new Float32Array(2), v: new Float32Array(2) };
  lt.adamUpdate({ t: 1, lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, gradScale: 0.25, g, ...a });
  lt.adamUpdate({ t: 1, lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, gradScale: 1, g: Float32Array.of(0.5, -1), ...b });
  assert.deepEqual(a, b);
});

test('global grad-norm clipping: coefficient min(1, max_norm / (norm + 1e-6)), off at 0', () => {
  const g = Float32Array.of(3, 0, -4); // norm 5
  const c = lt.clipGradients(g, 1);
  assert.equal(c.norm, 5);
  assert.ok(Math.abs(c.coefficient - 1 / (5 + 1e-6)) < 1e-15);
  assert.equal(lt.clipGradients(g, 10).coefficient, 1);
  assert.equal(lt.clipGradients(g, 0).coefficient, 1);
  assert.ok(Number.isNaN(lt.clipGradients(Float32Array.of(1, NaN), 1).norm));
});

test('the learning rate moves linearly from lr to lr_end over lr_decay_steps, then stays; 0 steps keeps it constant', () => {
  const lr = learnerTesting().scheduledLearningRate;
  assert.equal(lr(1e-3, 1e-4, 0, 1), 1e-3);
  assert.equal(lr(1e-3, 1e-4, 0, 1_000_000), 1e-3);
  assert.equal(lr(1e-3, 1e-4, 100, 1), 1e-3, 'step 1 uses lr');
  assert.ok(Math.abs(lr(1e-3, 1e-4, 100, 51) - (1e-3 + (1e-4 - 1e-3) * 0.5)) < 1e-18, 'half way at step 51');
  assert.ok(Math.abs(lr(1e-3, 1e-4, 100, 101) - 1e-4) < 1e-18);
  assert.ok(Math.abs(lr(1e-3, 1e-4, 100, 5000) - 1e-4) < 1e-18, 'held at lr_end');
});
