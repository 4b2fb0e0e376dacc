// The loss parts and the gradient budget in the CPU learner (native/src/train/loss_parts.h; DESIGN
// section 4, "Gradient budget"): with CQL on, the step's loss is the main head's plus CQL's, each
// part's gradient is taken and clipped on its own (CQL's share of grad_clip, the main head the
// rest), and grad_norm is the norm of the unclipped sum. The parts' gradients are rebuilt here
// from headLoss (the main part) and netBackward on CQL's gradient wrt Q (its path through
// q_gradient), on the learner's weights before the step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeadsSchema } from '../../common/config.ts';
import { learnerTesting, randomArray, uniformSource, type HeadsNetSpec, type LearnerBatch } from './helpers/learner.ts';

const lt = learnerTesting();
const B = 16, ALPHA = 0.5, SHARE = 0.25;

function net(main: 'q' | 'c51', cql: boolean): HeadsNetSpec {
  const heads = HeadsSchema.parse({ main, c51: { atoms: 9, v_min: -3, v_max: 3 }, cql: { alpha: cql ? ALPHA : 0, share: SHARE } });
  return { stateDim: 4, nActions: 3, hidden: [12, 8], dueling: true, heads };
}

function batch(seed: number): LearnerBatch {
  const rand = uniformSource(seed);
  return {
    states: randomArray(B * 4, rand), nextStates: randomArray(B * 4, rand), actions: Int32Array.from({ length: B }, (_, i) => i % 3),
    rewards: randomArray(B, rand, -1, 1), discounts: new Float32Array(B).fill(0.9), weights: randomArray(B, rand, 0.3, 1),
  };
}

const learner = (n: HeadsNetSpec, gradClip: number) =>
  new lt.Learner(n, { lr: 1e-3, adamEps: 1e-8, gradClip, batchSize: B, doubleDqn: true, huberDelta: 1, target: { kind: 'hard', interval: 100 } }, 5);
const norm = (g: ArrayLike<number>) => Math.sqrt(Array.from(g).reduce((s, x) => s + x * x, 0));
const near = (got: number, want: number, rel: number, what: string) =>
  assert.ok(Math.abs(got - want) <= rel * Math.abs(want) + 1e-9, `${what}: ${got}, expected ${want}`);

/** CQL's loss and its gradient wrt every parameter, from the main head's Q-values of the batch's s. */
function cqlReference(n: HeadsNetSpec, w: Float32Array, b: LearnerBatch): { loss: number; grads: Float32Array } {
  const q = lt.netForward(n, w, b.states), a = n.nActions, dq = new Float32Array(B * a);
  let loss = 0;
  for (let i = 0; i < B; i++) {
    const row = Array.from(q.subarray(i * a, i * a + a)), top = Math.max(...row);
    const lse = top + Math.log(row.reduce((s, x) => s + Math.exp(x - top), 0));
    loss += lse - row[b.actions[i]!]!;
    row.forEach((x, j) => (dq[i * a + j] = (ALPHA * (Math.exp(x - lse) - (j === b.actions[i] ? 1 : 0))) / B));
  }
  return { loss: (ALPHA * loss) / B, grads: lt.netBackward(n, w, b.states, dq) };
}

for (const main of ['q', 'c51'] as const) {
  test(`${main} + CQL: the loss is the main part's plus CQL's, each part has its own gradient, grad_norm is the norm of their sum`, () => {
    const n = net(main, true), l = learner(n, 1e6), b = batch(1);
    const w = l.online(), target = l.target();
    const mainPart = lt.headLoss(n, w, target, b, { doubleDqn: true, huberDelta: 1 });
    const cql = cqlReference(n, w, b);
    const r = l.step(b);
    near(r.parts.main.loss, mainPart.loss, 1e-6, 'main loss');
    near(r.parts.cql.loss, cql.loss, 1e-5, 'CQL loss');
    near(r.loss, mainPart.loss + cql.loss, 1e-5, 'loss');
    near(r.parts.main.gradNorm, norm(mainPart.grads), 1e-5, 'main gradient norm');
    near(r.parts.cql.gradNorm, norm(cql.grads), 1e-4, 'CQL gradient norm');
    near(r.gradNorm, norm(mainPart.grads.map((g, i) => g + cql.grads[i]!)), 1e-4, 'grad_norm of the unclipped sum');
    // Far below their budgets (grad_clip 1e6): neither part is clipped.
    near(r.parts.main.clipped, r.parts.main.gradNorm, 1e-6, 'main clipped');
    near(r.parts.cql.clipped, r.parts.cql.gradNorm, 1e-6, 'CQL clipped');
    assert.deepEqual([r.parts.iqn, r.parts.ensemble], [{ loss: 0, gradNorm: 0, clipped: 0 }, { loss: 0, gradNorm: 0, clipped: 0 }]);
  });
}

test('over budget, each part is clipped to its share of grad_clip: CQL to share x clip, the main head to the rest', () => {
  const clip = 1e-3, l = learner(net('q', true), clip), b = batch(2);
  for (let i = 0; i < 5; i++) {
    const r = l.step(b);
    assert.ok(r.parts.main.gradNorm > clip && r.parts.cql.gradNorm > clip, 'both parts over their budgets');
    near(r.parts.cql.clipped, SHARE * clip, 1e-4, `step ${i}: CQL clipped norm`);
    near(r.parts.main.clipped, (1 - SHARE) * clip, 1e-4, `step ${i}: main clipped norm`);
  }
});

test('with CQL off the main head alone gets the whole grad_clip', () => {
  const clip = 1e-3, l = learner(net('q', false), clip), b = batch(3);
  const r = l.step(b);
  assert.ok(r.parts.main.gradNorm > clip);
  near(r.parts.main.clipped, clip, 1e-4, 'main clipped norm');
  near(r.gradNorm, r.parts.main.gradNorm, 0, 'grad_norm is the main part\'s');
  assert.deepEqual(r.parts.cql, { loss: 0, gradNorm: 0, clipped: 0 });
});
