// The IQN head (native/src/model/iqn_head.h; Dabney et al. 2018) through the CPU learner: its loss,
// TD signal and every gradient tensor against a float64 reference written here (the same Philox
// fractions, drawn by rulesTesting.quantileFractions) and against central finite differences of
// that reference; its fractions per step; acting on the mean over K fractions; and an auxiliary
// IQN head beside the Q head as its own part of the gradient budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeadsSchema, type HeadsConfig } from '../../common/config.ts';
import { rulesTesting } from '../rules_testing.ts';
import {
  finiteDifferences, dense, learnerTesting, randomArray, referenceQ, uniformSource,
  type LearnerBatch, type HeadsNetSpec, type HeadsLayout, type QLayers, type Slot,
} from './helpers/learner.ts';

const lt = learnerTesting();
const rt = rulesTesting();

/** A test case: the network with its heads, the run's seed and how a* is chosen. */
interface Case { net: HeadsNetSpec; seed: number; doubleDqn: boolean }

/** The layers of head k by name. */
function headSlots(layout: HeadsLayout, k: number): Record<string, Slot> {
  return Object.fromEntries(layout.heads[k]!.layers.map((l) => [l.name, l]));
}

/** Adds x·dy into the gradients of dense layer s and returns dL/dx = dy·Wᵀ (float64). */
function denseBackward(p: ArrayLike<number>, g: Float64Array, s: Slot, x: number[], dy: number[]): number[] {
  const dx = new Array<number>(s.in).fill(0);
  for (let j = 0; j < s.out; j++) {
    const d = dy[j]!;
    if (d === 0) continue;
    g[s.b + j] = g[s.b + j]! + d;
    for (let i = 0; i < s.in; i++) {
      g[s.w + i * s.out + j] = g[s.w + i * s.out + j]! + x[i]! * d;
      dx[i] = dx[i]! + p[s.w + i * s.out + j]! * d;
    }
  }
  return dx;
}

/** The trunk's activations of one state: [x, h_1, ..., h_L] (float64). */
function trunk(layout: HeadsLayout, p: ArrayLike<number>, x: number[]): number[][] {
  const acts = [x];
  for (const s of layout.trunk) acts.push(dense(p, s, acts.at(-1)!, true));
  return acts;
}

/** One fraction's forward: cos(pi i tau) [E], phi [F], psi ⊙ phi [F] and Z_tau [A] (eq. 4, sec. 3.1). */
function fraction(p: ArrayLike<number>, slots: Record<string, Slot>, q: QLayers, psi: number[], tau: number) {
  const cos = Array.from({ length: slots.embedding!.in }, (_, i) => Math.cos(Math.PI * i * tau));
  const phi = dense(p, slots.embedding!, cos, true);
  const mixed = psi.map((x, j) => x * phi[j]!);
  return { cos, phi, mixed, z: referenceQ(q, p, mixed) };
}

/** rho^kappa_tau(u) = |tau - 1{u < 0}| huber_kappa(u) / kappa and its derivative wrt the prediction (u = target - prediction). */
function quantileHuber(u: number, tau: number, kappa: number): { value: number; grad: number } {
  const w = Math.abs(tau - (u < 0 ? 1 : 0));
  const huber = Math.abs(u) <= kappa ? 0.5 * u * u : kappa * (Math.abs(u) - 0.5 * kappa);
  return { value: (w * huber) / kappa, grad: (-w * Math.max(-kappa, Math.min(kappa, u))) / kappa };
}

interface Reference { loss: number; td: number[]; tdMse: number; grad: Float64Array }

/**
 * The float64 IQN loss of head k (eq. 3) on `batch` at training step `step` of the run seeded c.seed,
 * with online parameters p and target parameters pt, and its gradient wrt p: fractions of s from
 * the online stream, of s' (online and target alike) from the target stream; a* by the mean over the
 * N' quantiles at s' (online network with Double DQN, else the target's); theta_j = r + discount
 * Z^target_{tau'_j}(s', a*); L_i = (1/N') sum_k sum_j rho(theta_j - Z_{tau_k}(s, a)); loss = mean_i w_i L_i.
 */
function referenceLoss(c: Case, layout: HeadsLayout, k: number, batch: LearnerBatch, step: number, p: ArrayLike<number>, pt: ArrayLike<number>): Reference {
  const { stateDim: d, nActions: a } = c.net;
  const { n, n_prime: nPrime, kappa } = c.net.heads.iqn;
  const b = batch.actions.length;
  const slots = headSlots(layout, k);
  const q: QLayers = { value: slots.value, advantage: slots.advantage ?? slots.q! };
  const tauS = rt.quantileFractions(c.seed, 'online', step, b, n), tauNext = rt.quantileFractions(c.seed, 'target', step, b, nPrime);
  const row = (x: Float32Array, i: number) => Array.from(x.subarray(i * d, (i + 1) * d));
  const grad = new Float64Array(p.length);
  const td: number[] = [];
  let loss = 0, sq = 0;
  for (let i = 0; i < b; i++) {
    const mean = (zs: number[][]) => Array.from({ length: a }, (_, j) => zs.reduce((s, z) => s + z[j]!, 0) / zs.length);
    const next = (params: ArrayLike<number>) => {
      const psi = trunk(layout, params, row(batch.nextStates, i)).at(-1)!;
      return Array.from({ length: nPrime }, (_, j) => fraction(params, slots, q, psi, tauNext[i * nPrime + j]!).z);
    };
    const zTarget = next(pt);
    const m = mean(c.doubleDqn ? next(p) : zTarget);
    const aStar = m.indexOf(Math.max(...m));
    const theta = zTarget.map((z) => batch.rewards[i]! + batch.discounts[i]! * z[aStar]!);
    const acts = trunk(layout, p, row(batch.states, i));
    const psi = acts.at(-1)!;
    const w = batch.weights[i]!, act = batch.actions[i]!;
    const dPsi = new Array<number>(psi.length).fill(0);
    let l = 0, meanZ = 0;
    for (let kk = 0; kk < n; kk++) {
      const tau = tauS[i * n + kk]!;
      const f = fraction(p, slots, q, psi, tau);
      const z = f.z[act]!;
      let g = 0;
      for (const t of theta) {
        const r = quantileHuber(t - z, tau, kappa);
        l += r.value;
        g += r.grad;
      }
      meanZ += z / n;
      // Backward of this fraction: dL/dZ at the taken action, through f, psi ⊙ phi and the embedding.
      const dq = Array.from({ length: a }, (_, j) => (j === act ? (w * g) / nPrime / b : 0));
      let dMixed: number[];
      if (q.value) {
        const dv = dq.reduce((s, x) => s + x, 0);
        const dA = dq.map((x) => x - dv / a);
        const fromV = denseBackward(p, grad, q.value, f.mixed, [dv]);
        dMixed = denseBackward(p, grad, q.advantage, f.mixed, dA).map((x, j) => x + fromV[j]!);
      } else {
        dMixed = denseBackward(p, grad, q.advantage, f.mixed, dq);
      }
      dMixed.forEach((x, j) => { dPsi[j] = dPsi[j]! + x * f.phi[j]!; });
      denseBackward(p, grad, slots.embedding!, f.cos, dMixed.map((x, j) => (f.phi[j]! > 0 ? x * psi[j]! : 0)));
    }
    // The trunk, from dL/dpsi.
    let dy = dPsi;
    for (let li = layout.trunk.length - 1; li >= 0; li--) {
      dy = dy.map((x, j) => (acts[li + 1]![j]! > 0 ? x : 0));
      dy = denseBackward(p, grad, layout.trunk[li]!, acts[li]!, dy);
    }
    l /= nPrime;
    td.push(l);
    loss += (w * l) / b;
    const meanTheta = theta.reduce((s, x) => s + x, 0) / nPrime;
    sq += (meanTheta - meanZ) ** 2 / b;
  }
  return { loss, td, tdMse: sq, grad };
}

/** A batch of b transitions: terminal (discount 0), truncated (bootstrapped with gamma) and 3-step (gamma^3) in turn. */
function mixedBatch(b: number, d: number, a: number, seed: number): LearnerBatch {
  const rand = uniformSource(seed), gamma = 0.99;
  const discounts = [0, gamma, gamma ** 3];
  return {
    states: randomArray(b * d, rand, -1.5, 1.5), nextStates: randomArray(b * d, rand, -1.5, 1.5),
    actions: Int32Array.from({ length: b }, () => Math.floor(rand(0, a))),
    // 3-step sums of rewards in [-1, 1]; wide enough that some TD errors pass kappa.
    rewards: randomArray(b, rand, -3, 3),
    discounts: Float32Array.from({ length: b }, (_, i) => discounts[i % 3]!),
    weights: randomArray(b, rand, 0.2, 1),
  };
}

/** Every tensor of the layout with its name: the trunk's W and b, then each head's layers'. */
function tensors(layout: HeadsLayout): { name: string; from: number; to: number }[] {
  const out: { name: string; from: number; to: number }[] = [];
  const add = (name: string, s: Slot) => out.push({ name: `${name}.W`, from: s.w, to: s.b }, { name: `${name}.b`, from: s.b, to: s.b + s.out });
  layout.trunk.forEach((s, l) => add(`trunk[${l}]`, s));
  for (const h of layout.heads) for (const s of h.layers) add(`${h.name}.${s.name}`, s);
  return out;
}

const learnerOptions = (c: Case, batchSize: number, gradClip = 10) => ({
  lr: 1e-3, adamEps: 1e-8, gradClip, batchSize, doubleDqn: c.doubleDqn, huberDelta: 1, target: { kind: 'hard' as const, interval: 1000 },
});

const close = (got: number, want: number, tol: number, what: string) =>
  assert.ok(Math.abs(got - want) <= tol * (1 + Math.abs(want)), `${what} = ${got}, expected ${want}`);

// Two trunks (dueling and plain output layers; Double DQN and classic a*), each at three batch sizes.
const iqnHeads = (iqn: Partial<HeadsConfig['iqn']>, main: HeadsConfig['main'] = 'iqn') =>
  HeadsSchema.parse({ main, iqn: { n: 3, n_prime: 4, k: 5, embedding: 4, ...iqn } });
const TRUNKS: [Case, Case] = [
  { net: { stateDim: 3, nActions: 3, hidden: [6, 5], dueling: true, heads: iqnHeads({ kappa: 1 }) }, seed: 11, doubleDqn: true },
  { net: { stateDim: 4, nActions: 2, hidden: [7], dueling: false, heads: iqnHeads({ kappa: 0.5 }) }, seed: 12, doubleDqn: false },
];

for (const c of TRUNKS) {
  for (const b of [1, 7, 64]) {
    const label = `hidden [${c.net.hidden}], ${c.net.dueling ? 'dueling' : 'plain'}, ${c.doubleDqn ? 'Double DQN' : 'classic'} a*, batch ${b}`;
    test(`IQN loss, TD signal and every gradient tensor match a float64 reference and central finite differences (${label})`, () => {
      const { layout } = lt.netInit(c.net, 0);
      const l = new lt.Learner(c.net, learnerOptions(c, b), c.seed);
      l.step(mixedBatch(b, c.net.stateDim, c.net.nActions, 100 + b)); // step 1 moves the online network off the target
      const p = l.online(), pt = l.target();
      assert.notDeepEqual(p, pt);
      const batch = mixedBatch(b, c.net.stateDim, c.net.nActions, 200 + b);
      const r = l.step(batch); // step 2
      assert.deepEqual(Object.keys(r.parts).filter((k) => r.parts[k as keyof typeof r.parts].gradient), ['main']);
      const g = r.parts.main.gradient!;
      const ref = referenceLoss(c, layout, 0, batch, 2, p, pt);
      assert.equal(r.flags, 0);
      close(r.loss, ref.loss, 1e-5, 'loss');
      close(r.parts.main.loss, ref.loss, 1e-5, 'main part loss');
      close(r.tdMse, ref.tdMse, 1e-5, 'td_mse');
      for (let i = 0; i < b; i++) close(r.td[i]!, ref.td[i]!, 1e-5, `td[${i}] (the transition's loss)`);
      const fd = finiteDifferences(p, (q) => referenceLoss(c, layout, 0, batch, 2, q, pt).loss);
      for (const t of tensors(layout)) {
        assert.ok(fd.subarray(t.from, t.to).some((x) => x !== 0), `${t.name}: every gradient is 0, nothing was checked`);
        for (let i = t.from; i < t.to; i++) {
          const at = `d loss / d ${t.name}[${i - t.from}]`;
          assert.ok(Math.abs(g[i]! - ref.grad[i]!) <= 1e-5 + 1e-4 * Math.abs(ref.grad[i]!), `${at} = ${g[i]}, reference ${ref.grad[i]}`);
          assert.ok(Math.abs(g[i]! - fd[i]!) <= 1e-4 + 1e-3 * Math.abs(fd[i]!), `${at} = ${g[i]}, finite difference ${fd[i]}`);
        }
      }
    });
  }
}

test("a step's fractions are reproducible (same seed and step, same loss and gradient) and differ across steps", () => {
  const c = TRUNKS[0];
  const batch = mixedBatch(7, c.net.stateDim, c.net.nActions, 5);
  // A learning rate of 1e-12 leaves the weights as they were to f32 rounding: only the fractions change between steps.
  const make = () => new lt.Learner(c.net, { ...learnerOptions(c, 7), lr: 1e-12 }, c.seed);
  const one = make(), two = make();
  const p = one.online();
  const first = one.step(batch), again = two.step(batch);
  assert.deepEqual(again.td, first.td);
  assert.equal(again.loss, first.loss);
  assert.deepEqual(again.parts.main.gradient, first.parts.main.gradient);
  const second = one.step(batch);
  assert.ok(Math.abs(second.loss - first.loss) > 1e-4, `step 2's loss ${second.loss} vs step 1's ${first.loss}: the fractions should differ`);
  const { layout } = lt.netInit(c.net, 0);
  close(second.loss, referenceLoss(c, layout, 0, batch, 2, p, p).loss, 1e-5, "step 2's loss at step 2's fractions");
  assert.ok(Math.abs(second.loss - referenceLoss(c, layout, 0, batch, 1, p, p).loss) > 1e-4, "step 2's loss is not step 1's fractions'");
});

test('acting: Q is the mean of Z_tau over K fractions drawn for the step, reproducible within a step and different across steps', () => {
  const c = TRUNKS[1];
  const { params, layout } = lt.netInit(c.net, 4);
  const rows = 5, d = c.net.stateDim, a = c.net.nActions, k = c.net.heads.iqn.k;
  const states = randomArray(rows * d, uniformSource(6), -1, 1);
  const q = lt.netForward(c.net, params, states, { seed: 9, step: 40 });
  assert.deepEqual(lt.netForward(c.net, params, states, { seed: 9, step: 40 }), q);
  assert.notDeepEqual(lt.netForward(c.net, params, states, { seed: 9, step: 41 }), q);
  assert.notDeepEqual(lt.netForward(c.net, params, states, { seed: 10, step: 40 }), q);
  const tau = rt.quantileFractions(9, 'act', 40, rows, k);
  const slots = headSlots(layout, 0);
  for (let r = 0; r < rows; r++) {
    const psi = trunk(layout, params, Array.from(states.subarray(r * d, (r + 1) * d))).at(-1)!;
    const zs = Array.from({ length: k }, (_, i) => fraction(params, slots, { advantage: slots.q! }, psi, tau[r * k + i]!).z);
    for (let j = 0; j < a; j++) close(q[r * a + j]!, zs.reduce((s, z) => s + z[j]!, 0) / k, 1e-5, `Q[${r}, ${j}]`);
  }
});

test('the IQN head follows the trunk: embedding [E x F] He-uniform with gain sqrt(2), then the output layers with gain 1', () => {
  const net: HeadsNetSpec = { stateDim: 8, nActions: 5, hidden: [64, 48], dueling: true, heads: HeadsSchema.parse({ main: 'iqn' }) };
  const { params, layout } = lt.netInit(net, 2);
  assert.deepEqual(layout.heads.map((h) => [h.name, h.part, h.layers.map((l) => [l.name, l.in, l.out])]),
    [['iqn', 'main', [['embedding', 64, 48], ['value', 48, 1], ['advantage', 48, 5]]]]);
  assert.equal(layout.heads[0]!.layers[0]!.w, layout.trunk[1]!.b + 48, 'the head comes right after the trunk');
  for (const [l, gain] of [[0, Math.SQRT2], [1, 1], [2, 1]] as const) {
    const s = layout.heads[0]!.layers[l]!, bound = gain * Math.sqrt(3 / s.in);
    const w = params.subarray(s.w, s.b);
    assert.ok(w.every((x) => Math.abs(x) <= bound * (1 + 1e-6)) && w.some((x) => Math.abs(x) > 0.9 * bound), `${s.name}: within +-${bound}`);
    assert.ok(params.subarray(s.b, s.b + s.out).every((x) => x === 0), `${s.name}: zero biases`);
  }
  assert.throws(() => lt.netBackward(net, params, new Float32Array(8), new Float32Array(5)), /the IQN head has no deterministic Q-values to differentiate/);
});

test('an auxiliary IQN head beside the Q head: its clipped gradient is its share of grad_clip, the Q head gets the rest, and it does not act', () => {
  const share = 0.3, b = 16;
  const heads = iqnHeads({ auxiliary: true, share }, 'q');
  const c: Case = { net: { stateDim: 3, nActions: 3, hidden: [6, 5], dueling: true, heads }, seed: 21, doubleDqn: true };
  const { layout } = lt.netInit(c.net, 0);
  assert.deepEqual(layout.heads.map((h) => [h.name, h.part]), [['q', 'main'], ['iqn', 'iqn']]);
  const batch = mixedBatch(b, 3, 3, 8);
  for (const gradClip of [1e-3, 1e6]) {
    const l = new lt.Learner(c.net, learnerOptions(c, b, gradClip), c.seed);
    const p = l.online();
    const r = l.step(batch);
    assert.deepEqual(Object.keys(r.parts).filter((k) => r.parts[k as keyof typeof r.parts].gradient), ['main', 'iqn']);
    const { main, iqn } = r.parts;
    // The IQN part: its loss and its unclipped gradient (trunk and IQN head; 0 on the Q head) are the reference's.
    const ref = referenceLoss(c, layout, 1, batch, 1, p, p);
    close(iqn.loss, ref.loss, 1e-5, 'the IQN part loss');
    close(r.loss, main.loss + iqn.loss, 1e-12, 'the loss is the sum of the parts');
    for (let i = 0; i < layout.size; i++)
      assert.ok(Math.abs(iqn.gradient![i]! - ref.grad[i]!) <= 1e-5 + 1e-4 * Math.abs(ref.grad[i]!), `IQN part d loss / d theta[${i}] = ${iqn.gradient![i]}, reference ${ref.grad[i]}`);
    close(iqn.gradNorm, Math.hypot(...ref.grad), 1e-5, "the IQN part's gradient norm");
    if (gradClip === 1e6) {
      assert.equal(iqn.clipped, iqn.gradNorm, 'within budget: unclipped');
      assert.equal(main.clipped, main.gradNorm);
      continue;
    }
    assert.ok(iqn.gradNorm > share * gradClip && main.gradNorm > (1 - share) * gradClip, 'both parts over budget');
    close(iqn.clipped, share * gradClip, 1e-5, "the IQN part's clipped norm");
    close(main.clipped, (1 - share) * gradClip, 1e-5, "the main part's clipped norm");
  }
  // The Q head acts: the Q-values are those of the same trunk and Q head without the IQN head.
  const { params } = lt.netInit(c.net, 3);
  const plain: HeadsNetSpec = { ...c.net, heads: HeadsSchema.parse({}) };
  const states = randomArray(4 * 3, uniformSource(3), -1, 1);
  assert.deepEqual(lt.netForward(c.net, params, states, { seed: 1, step: 7 }), lt.netForward(plain, params.subarray(0, lt.netInit(plain, 0).layout.size), states));
});
