import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sumTreeFind } from '../replay.ts';
import { seededRandom } from './replay_reference.ts';

/** Brute force: the first slot whose running prefix sum exceeds the mass. */
function prefixFind(leaves: readonly number[], mass: number): number {
  let prefix = 0;
  for (let i = 0; i < leaves.length; i++) {
    prefix += leaves[i]!;
    if (mass < prefix) return i;
  }
  return -1;
}

test('a mass on a prefix boundary goes right (strict rule) and never lands on a zero leaf', () => {
  // Prefix boundaries: slot 1 covers [0, 1), slot 3 covers [1, 3); slots 0 and 2 are empty.
  const leaves = Float64Array.from([0, 1, 0, 2]);
  assert.deepEqual(Array.from(sumTreeFind(leaves, Float64Array.from([0, 0.5, 1, 2.5]))), [1, 1, 3, 3]);
});

test('a mass at or above the total is clamped below it and finds the last non-empty slot', () => {
  const leaves = Float64Array.from([1, 2, 0, 0, 0]);
  assert.deepEqual(Array.from(sumTreeFind(leaves, Float64Array.from([3, 3.5, 1e300, Infinity]))), [1, 1, 1, 1]);
});

test('rounding in the descent cannot step into an empty subtree', () => {
  // Found by search: for the mass just below the total, subtracting the left sums leaves more
  // than the right child holds, so an unguarded descent ends on empty slot 3.
  const leaves = Float64Array.from([77213.35019369169, 0.03824496774465309, 598227.2224741678, 0, 0, 0]);
  const total = (leaves[0]! + leaves[1]!) + (leaves[2]! + leaves[3]!);
  const belowTotal = total - total * 2 ** -53; // the largest double below the total here
  assert.ok(belowTotal < total);
  assert.deepEqual(Array.from(sumTreeFind(leaves, Float64Array.from([belowTotal]))), [2]);
});

test('descents agree with a brute-force prefix sum on random leaves with empty slots', () => {
  const rand = seededRandom(21);
  for (const n of [1, 2, 3, 17, 64, 1000]) {
    const leaves = Array.from({ length: n }, () => (rand() < 0.3 ? 0 : rand() * 10 ** (rand() * 6 - 3)));
    leaves[0] = leaves[0] || 1; // not all zero
    const total = leaves.reduce((s, x) => s + x, 0);
    const masses = Array.from({ length: 500 }, () => rand() * total);
    const got = sumTreeFind(Float64Array.from(leaves), Float64Array.from(masses));
    masses.forEach((m, k) => {
      const want = prefixFind(leaves, m);
      // Both sides round differently only within a hair of a boundary.
      let prefix = 0;
      for (let i = 0; i < want; i++) prefix += leaves[i]!;
      if (Math.abs(m - prefix) < 1e-12 * total || Math.abs(prefix + leaves[want]! - m) < 1e-12 * total) return;
      assert.equal(got[k], want, `n ${n}, mass ${m}`);
      assert.ok(leaves[got[k]!]! > 0);
    });
  }
});

test('sumTreeFind rejects leaves that cannot form a distribution', () => {
  assert.throws(() => sumTreeFind(new Float64Array(3), new Float64Array(1)), { name: 'RangeError', message: 'leaves must not all be zero' });
  assert.throws(() => sumTreeFind(Float64Array.from([1, NaN]), new Float64Array(1)), { name: 'RangeError', message: 'leaves[1] must be finite and >= 0' });
  assert.throws(() => sumTreeFind(Float64Array.from([1]), Float64Array.from([-1])), { name: 'RangeError', message: 'masses[0] must be >= 0' });
  assert.throws(() => sumTreeFind(new Float32Array(2) as unknown as Float64Array, new Float64Array(1)), { name: 'TypeError', message: 'leaves must be a Float64Array' });
});
