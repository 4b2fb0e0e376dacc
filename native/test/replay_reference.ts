// Slow, obvious references for the replay tests: Philox4x32-10 in BigInt arithmetic, the PER
// priority transform, a seeded input generator, transition batches and the chi-square bound.
// Nothing here calls the addon.
import type { TransitionBatch } from '../replay.ts';

/** Philox4x32-10 (Salmon et al. 2011, sec. 4.2) written from the paper with BigInt products. */
export function philoxRef(counter: readonly number[], key: readonly number[]): number[] {
  const M0 = 0xd2511f53n, M1 = 0xcd9e8d57n;
  let [c0, c1, c2, c3] = counter.map(BigInt) as [bigint, bigint, bigint, bigint];
  let [k0, k1] = key.map(BigInt) as [bigint, bigint];
  const MASK = 0xffffffffn;
  for (let round = 0; round < 10; round++) {
    if (round > 0) { k0 = (k0 + 0x9e3779b9n) & MASK; k1 = (k1 + 0xbb67ae85n) & MASK; }
    const p0 = M0 * c0, p1 = M1 * c2;
    [c0, c1, c2, c3] = [((p1 >> 32n) ^ c1 ^ k0) & MASK, p1 & MASK, ((p0 >> 32n) ^ c3 ^ k1) & MASK, p0 & MASK];
  }
  return [c0, c1, c2, c3].map(Number);
}

/** The replay's uniform for draw k of sample() call `step`: Philox words 0, 1 -> 53-bit double. */
export function replayUniform(seed: number, step: number, k: number): number {
  const key = [seed % 2 ** 32, Math.floor(seed / 2 ** 32)];
  const [hi, lo] = philoxRef([k, 0, step % 2 ** 32, Math.floor(step / 2 ** 32)], key) as [number, number];
  return (Math.floor(hi / 32) * 67108864 + Math.floor(lo / 64)) / 2 ** 53;
}

/** (min(|td|, pClip) + eps)^alpha in f64, td taken as the f32 the buffer receives. */
export function leafPriority(td: number, alpha: number, eps: number, pClip = 1e6): number {
  return Math.pow(Math.min(Math.abs(Math.fround(td)), pClip) + eps, alpha);
}

export { seededRandom } from '../../common/random.ts';

/**
 * B transitions of state dim D whose reward is `firstId + i` (so a slot's content tells which
 * transition it holds), states filled with firstId + i + j / 100, dones every third.
 */
export function makeBatch(count: number, stateDim: number, firstId = 0): TransitionBatch {
  const states = new Float32Array(count * stateDim);
  const nextStates = new Float32Array(count * stateDim);
  for (let i = 0; i < count; i++)
    for (let j = 0; j < stateDim; j++) {
      states[i * stateDim + j] = firstId + i + j / 100;
      nextStates[i * stateDim + j] = -(firstId + i) - j / 100;
    }
  return {
    states,
    nextStates,
    actions: Int32Array.from({ length: count }, (_, i) => (firstId + i) % 3),
    rewards: Float32Array.from({ length: count }, (_, i) => firstId + i),
    dones: Uint8Array.from({ length: count }, (_, i) => ((firstId + i) % 3 === 2 ? 1 : 0)),
  };
}

/**
 * Upper 99.9% quantile of the chi-square distribution with `df` degrees of freedom
 * (Wilson and Hilferty 1931 cube-root approximation, z = 3.090).
 */
export function chiSquareCritical(df: number): number {
  const z = 3.090;
  const a = 2 / (9 * df);
  return df * Math.pow(1 - a + z * Math.sqrt(a), 3);
}

/** Pearson's chi-square statistic of observed counts against expected probabilities. */
export function chiSquare(counts: readonly number[], probabilities: readonly number[], draws: number): number {
  let stat = 0;
  for (let i = 0; i < counts.length; i++) {
    const expected = draws * probabilities[i]!;
    stat += (counts[i]! - expected) ** 2 / expected;
  }
  return stat;
}
