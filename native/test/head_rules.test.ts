// The heads' scalar rules (native/src/rules/head_rules.h) against hand-worked cases, float64
// references written here, finite differences and binomial bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rulesTesting, type BudgetShare } from '../rules_testing.ts';
import { randomArray, uniformSource } from './helpers/learner.ts';

const rt = rulesTesting();
const f32 = Math.fround;

const close = (got: number, want: number, what: string, tol = 1e-12) =>
  assert.ok(Math.abs(got - want) <= tol, `${what} = ${got}, expected ${want} (tolerance ${tol})`);
const closeAll = (got: ArrayLike<number>, want: ArrayLike<number>, what: string, tol = 1e-12) => {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) close(got[i]!, want[i]!, `${what}[${i}]`, tol);
};
const sum = (x: ArrayLike<number>) => Array.from(x).reduce((a, b) => a + b, 0);

/** Float64 softmax of plain numbers. */
function softmax64(x: ArrayLike<number>): number[] {
  const top = Math.max(...Array.from(x));
  const e = Array.from(x, (v) => Math.exp(v - top));
  const s = sum(e);
  return e.map((v) => v / s);
}

/** A random distribution over n atoms (softmax of uniform logits in [-3, 3)). */
function randomDistribution(n: number, rand: (lo: number, hi: number) => number): Float64Array {
  return Float64Array.from(softmax64(Array.from({ length: n }, () => rand(-3, 3))));
}

/**
 * Central differences of f at f32 inputs: the step h = 2^-14 is exact in f32 for |x| < 4, so the
 * perturbed inputs are the ones the rule sees; f is evaluated in float64 by the addon.
 */
function finiteDifferences(x: Float32Array, f: (x: Float32Array) => number): number[] {
  const h = 2 ** -14;
  return Array.from(x, (_, i) => {
    const plus = x.slice(), minus = x.slice();
    plus[i] = x[i]! + h;
    minus[i] = x[i]! - h;
    assert.equal(plus[i]! - minus[i]!, 2 * h, 'the step is exact in f32');
    return (f(plus) - f(minus)) / (2 * h);
  });
}

// ---- C51 ----

// A support of five atoms z = [-2, -1, 0, 1, 2] (dz = 1) and a distribution worked by hand.
const FIVE = { vMin: -2, vMax: 2 };
const P5 = Float64Array.of(0.1, 0.2, 0.3, 0.25, 0.15);

test('the projection splits each shifted atom between its two neighbours, nearer one heavier', () => {
  // discount 0.5, r = 0.25: Tz = 0.25 + 0.5 z = [-0.75, -0.25, 0.25, 0.75, 1.25], b = Tz + 2 =
  // [1.25, 1.75, 2.25, 2.75, 3.25]; atom j gives p_j (ceil(b) - b) to floor(b), p_j (b - floor(b)) to ceil(b):
  const m1 = 0.1 * 0.75 + 0.2 * 0.25;
  const m2 = 0.1 * 0.25 + 0.2 * 0.75 + 0.3 * 0.75 + 0.25 * 0.25;
  const m3 = 0.3 * 0.25 + 0.25 * 0.75 + 0.15 * 0.75;
  const m4 = 0.15 * 0.25;
  const m = rt.categoricalProjection(P5, FIVE.vMin, FIVE.vMax, 0.25, 0.5);
  closeAll(m, [0, m1, m2, m3, m4], 'm');
  close(sum(m), 1, 'mass');
});

test('a target exactly on an atom keeps all its mass there (the fix of Algorithm 1 as printed)', () => {
  // discount 1, r = 1: Tz_j = z_j + 1 lands on atom j + 1; the top atom's Tz = 3 is clamped to 2.
  const m = rt.categoricalProjection(P5, FIVE.vMin, FIVE.vMax, 1, 1);
  closeAll(m, [0, 0.1, 0.2, 0.3, 0.25 + 0.15], 'm');
});

test('a terminal transition puts all the mass at the reward, split around it or on its atom', () => {
  const between = rt.categoricalProjection(P5, FIVE.vMin, FIVE.vMax, 0.25, 0);  // b = 2.25
  closeAll(between, [0, 0, 0.75, 0.25, 0], 'm (r = 0.25)');
  const onAtom = rt.categoricalProjection(P5, FIVE.vMin, FIVE.vMax, -1, 0);  // b = 1 exactly
  closeAll(onAtom, [0, 1, 0, 0, 0], 'm (r = -1)');
});

test('targets beyond the support land on its end atoms', () => {
  closeAll(rt.categoricalProjection(P5, FIVE.vMin, FIVE.vMax, 5, 0.5), [0, 0, 0, 0, 1], 'm (above v_max)');
  closeAll(rt.categoricalProjection(P5, FIVE.vMin, FIVE.vMax, -5, 0.5), [1, 0, 0, 0, 0], 'm (below v_min)');
  // r = 0.5, discount 1: Tz = [-1.5, -0.5, 0.5, 1.5, 2.5]; the last is clamped to v_max.
  closeAll(rt.categoricalProjection(P5, FIVE.vMin, FIVE.vMax, 0.5, 1), [0.05, 0.15, 0.25, 0.275, 0.275], 'm (partly above)');
});

test('the projection matches the O(atoms^2) form m_j = sum_i clip(1 - |b_i - j|, 0, 1) p_i on random supports', () => {
  const rand = uniformSource(23);
  for (let trial = 0; trial < 200; trial++) {
    const atoms = 2 + Math.floor(rand(0, 63));
    const vMin = rand(-20, 0), vMax = vMin + rand(1, 40);
    const reward = f32(rand(-30, 30)), discount = trial % 4 === 0 ? 0 : f32(rand(0, 1));
    const p = randomDistribution(atoms, rand);
    const dz = (vMax - vMin) / (atoms - 1);
    const b = Array.from({ length: atoms }, (_, i) => (Math.min(Math.max(reward + discount * (vMin + i * dz), vMin), vMax) - vMin) / dz);
    const want = Array.from({ length: atoms }, (_, j) => sum(b.map((bi, i) => Math.min(1, Math.max(0, 1 - Math.abs(bi - j))) * p[i]!)));
    const m = rt.categoricalProjection(p, vMin, vMax, reward, discount);
    closeAll(m, want, `trial ${trial} (atoms ${atoms})`, 1e-12);
    close(sum(m), 1, `trial ${trial}: mass`, 1e-12);
  }
});

test('softmax and the C51 Q-value match float64 references, and stay finite at large logits', () => {
  const rand = uniformSource(29);
  for (let trial = 0; trial < 50; trial++) {
    const atoms = 2 + Math.floor(rand(0, 60));
    const logits = randomArray(atoms, rand, -5, 5);
    const p = softmax64(logits);
    closeAll(rt.softmax(logits), p, `softmax, trial ${trial}`);
    const vMin = rand(-10, 0), vMax = rand(0.5, 10), dz = (vMax - vMin) / (atoms - 1);
    close(rt.categoricalQ(logits, vMin, vMax), sum(p.map((pj, j) => (vMin + j * dz) * pj)), `Q, trial ${trial}`, 1e-11);
  }
  closeAll(rt.softmax(Float32Array.of(1000, 1000, -1000)), [0.5, 0.5, 0], 'softmax of large logits');
  close(rt.categoricalQ(Float32Array.of(-1000, 1000), -3, 7), 7, 'Q of a distribution all on the top atom');
});

test('the cross-entropy matches a float64 reference and its gradient matches finite differences', () => {
  const rand = uniformSource(31);
  for (let trial = 0; trial < 40; trial++) {
    const atoms = 2 + Math.floor(rand(0, 50));
    const logits = randomArray(atoms, rand, -3, 3);
    // A projected target (mass 1) and, every other trial, arbitrary non-negative weights.
    const m = trial % 2 === 0 ? randomDistribution(atoms, rand) : Float64Array.from({ length: atoms }, () => rand(0, 0.2));
    const logp = softmax64(logits).map(Math.log);
    const r = rt.categoricalCrossEntropy(logits, m);
    close(r.value, -sum(logp.map((l, j) => m[j]! * l)), `loss, trial ${trial}`, 1e-11);
    const fd = finiteDifferences(logits, (x) => rt.categoricalCrossEntropy(x, m).value);
    closeAll(r.grad, fd, `gradient, trial ${trial}`, 1e-7);
  }
});

test('one C51 transition end to end (the usage example of head_rules.h): softmax, projection, loss', () => {
  const rand = uniformSource(67);
  const atoms = 51, vMin = -10, vMax = 10;
  const targetLogits = randomArray(atoms, rand, -2, 2), logits = randomArray(atoms, rand, -2, 2);
  const p = rt.softmax(targetLogits);
  const m = rt.categoricalProjection(p, vMin, vMax, f32(1.5), f32(0.99 ** 3));
  const r = rt.categoricalCrossEntropy(logits, m);
  const logq = softmax64(logits).map(Math.log);
  close(r.value, -sum(logq.map((l, j) => m[j]! * l)), 'loss', 1e-11);
  closeAll(r.grad, softmax64(logits).map((q, j) => q - m[j]!), 'gradient softmax - m', 1e-12);
});

// ---- IQN ----

test('the quantile Huber loss weights errors by tau above the quantile and by 1 - tau below it', () => {
  // kappa = 1, |u| = 0.5 (quadratic part: L = 0.125), |u| = 3 (linear part: L = 3 - 0.5 = 2.5).
  const cases = [
    { u: 0.5, tau: 0.25, kappa: 1, value: 0.25 * 0.125, grad: -0.25 * 0.5 },
    { u: -0.5, tau: 0.25, kappa: 1, value: 0.75 * 0.125, grad: 0.75 * 0.5 },
    { u: 3, tau: 0.25, kappa: 1, value: 0.25 * 2.5, grad: -0.25 },
    { u: -3, tau: 0.25, kappa: 1, value: 0.75 * 2.5, grad: 0.75 },
    // kappa = 2: |u| = 1.5 is quadratic (1.125 / 2), |u| = 3 linear (2 (3 - 1) / 2 = 2).
    { u: 1.5, tau: 0.9, kappa: 2, value: 0.9 * 1.125 / 2, grad: -0.9 * 1.5 / 2 },
    { u: -3, tau: 0.9, kappa: 2, value: 0.1 * 2, grad: 0.1 * 2 / 2 },
    // tau near 0: errors above the quantile cost almost nothing, errors below cost almost fully.
    { u: 2, tau: 1e-6, kappa: 1, value: 1e-6 * 1.5, grad: -1e-6 },
    { u: -2, tau: 1e-6, kappa: 1, value: (1 - 1e-6) * 1.5, grad: 1 - 1e-6 },
    // tau near 1: the reverse.
    { u: 2, tau: 1 - 1e-6, kappa: 1, value: (1 - 1e-6) * 1.5, grad: -(1 - 1e-6) },
    { u: -0.1, tau: 1 - 1e-6, kappa: 1, value: 1e-6 * 0.005, grad: 1e-6 * 0.1 },
    { u: 0, tau: 0.5, kappa: 1, value: 0, grad: 0 },
  ];
  for (const c of cases) {
    const r = rt.quantileHuber(c.u, c.tau, c.kappa);
    close(r.value, c.value, `value(u ${c.u}, tau ${c.tau}, kappa ${c.kappa})`, 1e-14);
    close(r.grad, c.grad, `grad(u ${c.u}, tau ${c.tau}, kappa ${c.kappa})`, 1e-14);
  }
});

test('the quantile Huber gradient wrt the prediction matches finite differences', () => {
  const rand = uniformSource(37);
  const h = 1e-6;
  for (let trial = 0; trial < 300; trial++) {
    const kappa = rand(0.1, 3), tau = rand(0, 1), target = rand(-5, 5), prediction = rand(-5, 5);
    const u = target - prediction;
    if (Math.min(Math.abs(u), Math.abs(Math.abs(u) - kappa)) < 1e-3) continue;  // kinks of the second derivative
    const loss = (pred: number) => rt.quantileHuber(target - pred, tau, kappa).value;
    close(rt.quantileHuber(u, tau, kappa).grad, (loss(prediction + h) - loss(prediction - h)) / (2 * h), `trial ${trial}`, 1e-7);
  }
});

test('the cosine embedding feature is cos(pi i tau) in f32', () => {
  const rand = uniformSource(41);
  close(rt.iqnCosineFeature(0, 0.7), 1, 'i = 0', 0);
  close(rt.iqnCosineFeature(2, 0.5), -1, 'cos(pi)', 0);
  for (let k = 0; k < 200; k++) {
    const i = Math.floor(rand(0, 64)), tau = f32(rand(0, 1));
    close(rt.iqnCosineFeature(i, tau), f32(Math.cos(Math.PI * i * tau)), `i ${i}, tau ${tau}`, 1.2e-7);
  }
});

test('quantile fractions are reproducible 24-bit uniforms in [0, 1), distinct per stream, step and row', () => {
  const rows = 256, count = 64, n = rows * count;
  const a = rt.quantileFractions(7, 'online', 12, rows, count);
  assert.deepEqual(rt.quantileFractions(7, 'online', 12, rows, count), a, 'same arguments, same fractions');
  assert.deepEqual(rt.quantileFractions(7, 'online', 12, 3, count), a.subarray(0, 3 * count), 'a row does not depend on the batch size');
  for (const x of a) assert.ok(x >= 0 && x < 1 && Number.isInteger(x * 2 ** 24), `fraction ${x}`);
  const mean = sum(a) / n, variance = sum(Array.from(a, (x) => (x - mean) ** 2)) / n;
  close(mean, 0.5, 'mean', 4 * Math.sqrt(1 / 12 / n));
  close(variance, 1 / 12, 'variance', 4 * Math.sqrt(1 / 180 / n));  // var of (U - 1/2)^2 is 1/80 - 1/144 = 1/180
  const others = [rt.quantileFractions(7, 'target', 12, rows, count), rt.quantileFractions(7, 'act', 12, rows, count),
    rt.quantileFractions(7, 'online', 13, rows, count), rt.quantileFractions(8, 'online', 12, rows, count)];
  for (const b of others) {
    const same = a.filter((x, i) => x === b[i]).length;
    assert.ok(same < 10, `${same} of ${n} fractions repeat in another stream, step or seed`);
  }
  const firstRow = a.subarray(0, count), secondRow = a.subarray(count, 2 * count);
  assert.notDeepEqual(firstRow, secondRow, 'rows draw their own fractions');
});

// ---- CQL(H) ----

test('the CQL term is log 2 for two equal Q-values and vanishes for a dominant data action', () => {
  const even = rt.cql(Float32Array.of(2, 2), 0);
  close(even.value, Math.LN2, 'value of two equal Q-values');
  closeAll(even.grad, [-0.5, 0.5], 'gradient of two equal Q-values');
  const dominant = rt.cql(Float32Array.of(50, 0, 0), 0);
  close(dominant.value, 0, 'value when the data action dominates', 1e-20);
  closeAll(dominant.grad, [0, 0, 0], 'gradient when the data action dominates', 1e-20);
  // The dominant action is not the data action: the term is the gap, pushing Q(s, 0) down and Q(s, 1) up.
  const other = rt.cql(Float32Array.of(1000, 0), 1);
  close(other.value, 1000, 'value with a large gap (stable log-sum-exp)');
  closeAll(other.grad, [1, -1], 'gradient with a large gap');
});

test('the CQL term matches a float64 reference and its gradient matches finite differences', () => {
  const rand = uniformSource(43);
  for (let trial = 0; trial < 60; trial++) {
    const n = 1 + Math.floor(rand(0, 45));
    const q = randomArray(n, rand, -3, 3);
    const action = Math.floor(rand(0, n));
    const r = rt.cql(q, action);
    close(r.value, -Math.log(softmax64(q)[action]!), `value, trial ${trial}`, 1e-12);
    closeAll(r.grad, finiteDifferences(q, (x) => rt.cql(x, action).value), `gradient, trial ${trial}`, 1e-7);
  }
});

// ---- Gradient budget ----

const on = (share: number): BudgetShare => ({ enabled: true, share });
const off = (share: number): BudgetShare => ({ enabled: false, share });

test('each enabled part is clipped to its share of grad_clip and the main head to the rest', () => {
  const norms = Float64Array.of(100, 50, 20, 30);  // main, iqn, ensemble, cql: all above their budgets
  const r = rt.gradientBudget(10, { iqn: on(0.2), ensemble: on(0.1), cql: on(0.15) }, norms);
  const want = [(1 - 0.2 - 0.1 - 0.15) * 10, 0.2 * 10, 0.1 * 10, 0.15 * 10];
  closeAll(r.budget, want, 'budget');
  close(sum(r.budget), 10, 'the budgets add up to grad_clip');
  norms.forEach((norm, k) => close(norm * r.coefficient[k]!, want[k]!, `clipped norm of part ${k}`, want[k]! * 1e-6));
  // A part under its budget is not scaled.
  const under = rt.gradientBudget(10, { iqn: on(0.2), ensemble: on(0.1), cql: on(0.15) }, Float64Array.of(1, 1, 0.5, 1));
  closeAll(under.coefficient, [1, 1, 1, 1], 'coefficients under budget');
});

test('disabled parts give their share back: the main head alone gets the whole grad_clip', () => {
  const norms = Float64Array.of(100, 0, 0, 0);
  const alone = rt.gradientBudget(4, { iqn: off(0.2), ensemble: off(0.1), cql: off(0.1) }, norms);
  closeAll(alone.budget, [4, 0, 0, 0], 'budget');
  close(100 * alone.coefficient[0]!, 4, 'the main head clipped to grad_clip', 4e-6);
  const some = rt.gradientBudget(4, { iqn: off(0.2), ensemble: on(0.1), cql: off(0.1) }, norms);
  closeAll(some.budget, [4 * 0.9, 0, 4 * 0.1, 0], 'budget with the ensemble alone');
  const rand = uniformSource(47);
  for (let trial = 0; trial < 50; trial++) {
    const clip = rand(0.1, 100), shares = [rand(0, 0.3), rand(0, 0.3), rand(0, 0.3)], enabled = shares.map(() => rand(0, 1) < 0.5);
    const [iqn, ensemble, cql] = shares.map((s, k) => ({ enabled: enabled[k]!, share: s }));
    const r = rt.gradientBudget(clip, { iqn: iqn!, ensemble: ensemble!, cql: cql! }, norms);
    close(sum(r.budget), clip, `trial ${trial}: the budgets add up to grad_clip`, 1e-12 * clip);
    shares.forEach((s, k) => close(r.budget[k + 1]!, enabled[k] ? s * clip : 0, `trial ${trial}: part ${k + 1}`, 1e-12 * clip));
  }
});

test('grad_clip 0 turns clipping off for every part', () => {
  const r = rt.gradientBudget(0, { iqn: on(0.2), ensemble: on(0.1), cql: on(0.1) }, Float64Array.of(1e9, 1e9, 1e9, 1e9));
  closeAll(r.coefficient, [1, 1, 1, 1], 'coefficients');
});

// ---- Bootstrapped DQN masks ----

const range = (n: number, from = 0) => Uint32Array.from({ length: n }, (_, i) => from + i);
const agreement = (a: Uint8Array, b: Uint8Array) => a.filter((x, i) => x === b[i]).length / a.length;

test('a transition keeps its bootstrap mask while it stays in its slot, whatever the batch around it', () => {
  const slots = range(500, 1000), gens = new Uint32Array(500).fill(3);
  const a = rt.bootstrapMasks(11, slots, gens, 5, 0.5);
  assert.deepEqual(rt.bootstrapMasks(11, slots, gens, 5, 0.5), a, 'the same call gives the same masks');
  // The same transitions in reverse order, inside another batch: each keeps its five masks.
  const reversed = Uint32Array.from([...slots].reverse());
  const b = rt.bootstrapMasks(11, Uint32Array.of(7, ...reversed), Uint32Array.of(0, ...gens), 5, 0.5);
  for (let i = 0; i < 500; i++)
    assert.deepEqual(b.subarray((500 - i) * 5, (501 - i) * 5), a.subarray(i * 5, (i + 1) * 5), `slot ${slots[i]}`);
});

test('an overwritten slot (next generation) draws a fresh mask: masks agree p^2 + (1-p)^2 of the time', () => {
  const n = 20000, p = 0.3;
  const g = rt.bootstrapMasks(5, range(n), new Uint32Array(n).fill(8), 1, p);
  const next = rt.bootstrapMasks(5, range(n), new Uint32Array(n).fill(9), 1, p);
  const expected = p * p + (1 - p) * (1 - p);
  close(agreement(g, next), expected, 'agreement across generations', 4 * Math.sqrt(expected * (1 - expected) / n));
  // Heads draw independently of each other too.
  const heads = rt.bootstrapMasks(5, range(n), new Uint32Array(n).fill(8), 2, p);
  const head0 = heads.filter((_, i) => i % 2 === 0), head1 = heads.filter((_, i) => i % 2 === 1);
  close(agreement(head0, head1), expected, 'agreement across heads', 4 * Math.sqrt(expected * (1 - expected) / n));
});

test('the fraction of ones in the bootstrap masks is p within 4 sigma', () => {
  const n = 4000, heads = 4;  // 16,000 draws per p
  for (const p of [0.1, 0.5, 0.85]) {
    const m = rt.bootstrapMasks(17, range(n, 123), range(n, 40), heads, p);
    close(sum(m) / m.length, p, `fraction of ones (p = ${p})`, 4 * Math.sqrt(p * (1 - p) / m.length));
  }
  assert.equal(sum(rt.bootstrapMasks(17, range(100), range(100), heads, 0)), 0, 'p = 0: no transition');
  assert.equal(sum(rt.bootstrapMasks(17, range(100), range(100), heads, 1)), 100 * heads, 'p = 1: every transition');
});
