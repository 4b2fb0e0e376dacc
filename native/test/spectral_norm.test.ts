// Spectral normalisation on the CPU (native/src/model/spectral_norm.h): one power iteration per
// step with a persistent vector, then W scaled down to sigma_max. The largest singular value is
// computed here independently, in float64, by power iteration on W^T W to convergence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rulesTesting } from '../rules_testing.ts';
import { largestSingularValue, randomArray, uniformSource } from './helpers/learner.ts';

const rt = rulesTesting();

const SHAPES: Array<[number, number]> = [[7, 5], [64, 32], [5, 9]];

test('the power iteration estimate rises to the largest singular value and never passes it', () => {
  const rand = uniformSource(53);
  SHAPES.forEach(([rows, cols], k) => {
    const w = randomArray(rows * cols, rand);
    const original = w.slice();
    const sigma = largestSingularValue(w, rows, cols);
    const estimates = rt.spectralNormalize(w, rows, cols, rt.powerIterationVector(cols, 1, k), 0, 200);
    for (const e of estimates) assert.ok(e <= sigma * (1 + 1e-6), `estimate ${e} above sigma ${sigma}`);
    assert.ok(Math.abs(estimates.at(-1)! - sigma) <= 1e-5 * sigma, `${rows}x${cols}: ${estimates.at(-1)} vs ${sigma}`);
    assert.deepEqual(w, original, 'sigma_max 0 leaves W alone');
  });
});

test('spectral normalisation brings the largest singular value down to sigma_max within 1 %', () => {
  const rand = uniformSource(59);
  SHAPES.forEach(([rows, cols], k) => {
    const w = randomArray(rows * cols, rand, -2, 2);
    const sigma = largestSingularValue(w, rows, cols);
    const sigmaMax = sigma * 0.4;
    rt.spectralNormalize(w, rows, cols, rt.powerIterationVector(cols, 2, k), sigmaMax, 100);
    const after = largestSingularValue(w, rows, cols);
    assert.ok(Math.abs(after - sigmaMax) <= 0.01 * sigmaMax, `${rows}x${cols}: sigma ${after}, bound ${sigmaMax}`);
  });
});

test('a matrix whose largest singular value is below sigma_max stays bit-for-bit untouched', () => {
  const rand = uniformSource(61);
  SHAPES.forEach(([rows, cols], k) => {
    const w = randomArray(rows * cols, rand);
    const original = w.slice();
    const sigmaMax = largestSingularValue(w, rows, cols) * 1.01;
    rt.spectralNormalize(w, rows, cols, rt.powerIterationVector(cols, 3, k), sigmaMax, 150);
    assert.deepEqual(new Uint32Array(w.buffer), new Uint32Array(original.buffer), `${rows}x${cols}`);
  });
});

test('the first power-iteration vector is a unit vector fixed by the seed and the matrix number', () => {
  const u = rt.powerIterationVector(32, 9, 4);
  assert.ok(Math.abs(Math.hypot(...u) - 1) <= 1e-6, `|u| = ${Math.hypot(...u)}`);
  assert.deepEqual(rt.powerIterationVector(32, 9, 4), u, 'same seed and matrix');
  assert.notDeepEqual(rt.powerIterationVector(32, 9, 5), u, 'another matrix');
  assert.notDeepEqual(rt.powerIterationVector(32, 10, 4), u, 'another seed');
});

test('the zero matrix has sigma 0 and keeps its vector', () => {
  const u = rt.powerIterationVector(4, 1, 0);
  const before = u.slice();
  const w = new Float32Array(12);
  assert.deepEqual(Array.from(rt.spectralNormalize(w, 3, 4, u, 1, 3)), [0, 0, 0]);
  assert.deepEqual(u, before);
  assert.deepEqual(w, new Float32Array(12));
});
