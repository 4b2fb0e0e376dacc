import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnerTesting, randomArray, uniformSource } from './helpers/learner.ts';

const lt = learnerTesting();

// Float64 reference of each product, indexing the operands as stored.
function reference(op: 'nn' | 'nt' | 'tn', m: number, n: number, k: number, a: Float32Array, b: Float32Array): number[] {
  const c: number[] = [];
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let kk = 0; kk < k; kk++) {
        const av = op === 'tn' ? a[kk * m + i]! : a[i * k + kk]!;
        const bv = op === 'nt' ? b[j * k + kk]! : b[kk * n + j]!;
        s += av * bv;
      }
      c.push(s);
    }
  return c;
}

function assertClose(got: Float32Array, want: number[], k: number, what: string): void {
  // Each output sums k products of values in [-1, 1): f32 rounding grows at most like k * 2^-24.
  const tol = 4 * k * 2 ** -24 + 1e-6;
  for (let i = 0; i < want.length; i++)
    assert.ok(Math.abs(got[i]! - want[i]!) <= tol, `${what}[${i}] = ${got[i]}, expected ${want[i]}`);
}

test('the documented 2x3 by 3x2 example gives {4, 5, 10, 11}', () => {
  const c = lt.matmul('nn', 'auto', 2, 2, 3, Float32Array.of(1, 2, 3, 4, 5, 6), Float32Array.of(1, 0, 0, 1, 1, 1));
  assert.deepEqual(Array.from(c), [4, 5, 10, 11]);
});

test('A·B, A·Bᵀ and Aᵀ·B match a float64 reference on odd shapes, through BLAS and the portable loops', () => {
  const rand = uniformSource(7);
  // Shapes straddle the portable kernel's 4-row, 128-deep and 256-wide blocks.
  for (const [m, n, k] of [[1, 1, 1], [3, 5, 7], [37, 300, 150], [130, 257, 129], [256, 45, 256]] as const) {
    const a = randomArray(m * k, rand);
    const b = randomArray(k * n, rand);
    for (const op of ['nn', 'nt', 'tn'] as const) {
      const want = reference(op, m, n, k, a, b);
      for (const impl of ['auto', 'portable'] as const)
        assertClose(lt.matmul(op, impl, m, n, k, a, b), want, k, `${op}/${impl} ${m}x${n}x${k}`);
    }
  }
});

test('both implementations return bit-identical results when called twice (deterministic)', () => {
  const rand = uniformSource(11);
  const a = randomArray(64 * 200, rand);
  const b = randomArray(200 * 96, rand);
  for (const impl of ['auto', 'portable'] as const)
    for (const op of ['nn', 'tn'] as const) {
      const [m, n, k] = op === 'tn' ? [200, 96, 64] : [64, 96, 200];
      const bb = op === 'tn' ? randomArray(64 * 96, uniformSource(3)) : b;
      assert.deepEqual(lt.matmul(op, impl, m, n, k, a, bb), lt.matmul(op, impl, m, n, k, a, bb));
    }
  assert.ok(['cblas', 'portable'].includes(lt.gemmBackend));
});

test('matmul rejects operands of the wrong length', () => {
  assert.throws(() => lt.matmul('nn', 'auto', 2, 2, 3, new Float32Array(5), new Float32Array(6)), /a must be a Float32Array of length 6, got length 5/);
  assert.throws(() => lt.matmul('xx' as 'nn', 'auto', 1, 1, 1, new Float32Array(1), new Float32Array(1)), /op must be one of 'nn', 'nt', 'tn'/);
});
