// CartPole's sin and cos (native/src/env/cartpole_dynamics.h SinCos), which the host
// environment and the GPU collector share so that their copies agree bit for bit: checked here
// against sin and cos computed exactly enough (BigInt fixed point, 700 bits) and rounded once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rulesTesting } from '../rules_testing.ts';
import { uniformSource } from './helpers/learner.ts';

const rt = rulesTesting();
const P = 700n;
const ONE = 1n << P;

/** x as the integer X = x * 2^700 (exact for 2^-375 <= |x| <= 1). */
function fixed(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n), frac = bits & ((1n << 52n) - 1n);
  assert.ok(biased > 0, 'a normal number');
  const shift = BigInt(biased - 1075) + P; // x = (2^52 + frac) * 2^(biased - 1075)
  assert.ok(shift >= 0n, `${x} is exact at 700 bits`);
  const X = ((1n << 52n) + frac) << shift;
  return x < 0 ? -X : X;
}

/** sin and cos of x by their Taylor series in 700-bit fixed point, each rounded once to a double. */
function exactSinCos(x: number): [number, number] {
  const X = fixed(x), X2 = (X * X) >> P;
  let sin = X, cos = ONE;
  let st = X, ct = ONE;
  for (let k = 1n; st !== 0n || ct !== 0n; k++) {
    st = -((st * X2) >> P) / ((2n * k) * (2n * k + 1n));
    ct = -((ct * X2) >> P) / ((2n * k - 1n) * (2n * k));
    sin += st;
    cos += ct;
  }
  // Number(bigint) rounds to nearest; scaling by 2^-700 is exact for these magnitudes.
  return [Number(sin) / 2 ** 700, Number(cos) / 2 ** 700];
}

test('CartPole\'s sin and cos are the correctly rounded values over the angles it meets, and its edge cases', (t) => {
  const rand = uniformSource(11);
  const theta12 = (12 * 2 * Math.PI) / 360;
  const xs = [1e-100, -1e-100, 2 ** -30, 0.5, -0.5, theta12, -theta12, 0.05, -0.05, 0.1, 1 / 3];
  for (let i = 0; i < 4000; i++) xs.push(rand(-0.5, 0.5));
  for (let i = 0; i < 1000; i++) xs.push(rand(-1e-3, 1e-3));
  const got = rt.cartpoleSinCos(Float64Array.from(xs));
  let v8Differs = 0;
  xs.forEach((x, i) => {
    const [s, c] = exactSinCos(x);
    assert.equal(got.sin[i], s, `sin(${x})`);
    assert.equal(got.cos[i], c, `cos(${x})`);
    if (Math.sin(x) !== s || Math.cos(x) !== c) v8Differs++;
  });
  t.diagnostic(`${xs.length} angles; V8's Math.sin / Math.cos differ from the correctly rounded value at ${v8Differs}`);
  // Zero keeps its sign, as IEEE sin does.
  const zeros = rt.cartpoleSinCos(Float64Array.of(0, -0));
  assert.ok(Object.is(zeros.sin[0], 0) && Object.is(zeros.sin[1], -0));
  assert.deepEqual(Array.from(zeros.cos), [1, 1]);
});

test('beyond |x| = 0.5 CartPole\'s sin and cos are the platform\'s (close to the exact values, not computed by the series)', () => {
  const xs = [0.75, -2, 3];
  const got = rt.cartpoleSinCos(Float64Array.from(xs));
  xs.forEach((x, i) => {
    assert.ok(Math.abs(got.sin[i]! - Math.sin(x)) <= 2 * Number.EPSILON, `sin(${x}) = ${got.sin[i]}`);
    assert.ok(Math.abs(got.cos[i]! - Math.cos(x)) <= 2 * Number.EPSILON, `cos(${x}) = ${got.cos[i]}`);
  });
  assert.ok(Number.isNaN(rt.cartpoleSinCos(Float64Array.of(Number.NaN)).sin[0]));
});
