// The heads on the seam (native/src/model/head.h): the Q head and the C51 head, plain and dueling,
// on two trunks, checked through learnerTesting against the float64 references of
// helpers/heads_reference.ts (written from the papers) and against central finite differences of
// those references: each head's raw outputs, its loss and TD signal, its gradient wrt its outputs,
// the gradient wrt every parameter (through the head's backward and the trunk's), the gradient of
// its Q-values (what CQL uses), and acting by the expected value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeadsSchema } from '../../common/config.ts';
import { finiteDifferences, learnerTesting, randomArray, uniformSource, type HeadsNetSpec, type LearnerBatch } from './helpers/learner.ts';
import { perAction, refBackward, refForward, refLoss, refProjection, refQ } from './helpers/heads_reference.ts';

const lt = learnerTesting();
const GAMMA = 0.99;

const TRUNKS = [{ stateDim: 3, hidden: [6], nActions: 3 }, { stateDim: 4, hidden: [5, 4], nActions: 2 }];
const HEADS = [
  HeadsSchema.parse({ main: 'q' }),
  HeadsSchema.parse({ main: 'c51', c51: { atoms: 7, v_min: -2, v_max: 3 } }),
];

/** Every case: head x dueling x trunk. */
const CASES = HEADS.flatMap((heads) => [true, false].flatMap((dueling) => TRUNKS.map((t): HeadsNetSpec => ({ ...t, dueling, heads }))));
const label = (net: HeadsNetSpec) => `${net.heads.main} ${net.dueling ? 'dueling' : 'plain'} on ${net.stateDim} -> [${net.hidden.join(', ')}]`;

/** Parameters from netInit with random biases, so every ReLU and parameter matters. */
function params(net: HeadsNetSpec, seed: number): Float32Array {
  const { params: p, layout } = lt.netInit(net, seed);
  const rand = uniformSource(seed + 100);
  for (const s of [...layout.trunk, ...layout.heads.flatMap((h) => h.layers)]) for (let j = 0; j < s.out; j++) p[s.b + j] = rand(-0.3, 0.3);
  return p;
}

/**
 * B transitions cycling through the three kinds the replay stores: terminal (discount 0), a
 * truncated or plain one-step transition (discount gamma: the true s' is bootstrapped) and a
 * 3-step one (reward sum_k gamma^k r_k, discount gamma^3). `start` picks the first kind.
 */
function transitions(net: HeadsNetSpec, b: number, seed: number, start = 0): LearnerBatch {
  const rand = uniformSource(seed), scale = net.heads.main === 'c51' ? 2 : 1;
  const rewards = new Float32Array(b), discounts = new Float32Array(b);
  for (let i = 0; i < b; i++) {
    const kind = (i + start) % 3;
    const r = Array.from({ length: kind === 2 ? 3 : 1 }, () => rand(-scale, scale));
    rewards[i] = r.reduce((s, x, k) => s + GAMMA ** k * x, 0);
    discounts[i] = kind === 0 ? 0 : GAMMA ** r.length;
  }
  return {
    states: randomArray(b * net.stateDim, rand, -1.5, 1.5), nextStates: randomArray(b * net.stateDim, rand, -1.5, 1.5),
    actions: Int32Array.from({ length: b }, () => Math.floor(rand(0, net.nActions))), rewards, discounts,
    weights: randomArray(b, rand, 0.2, 1),
  };
}

const near = (got: number, want: number, abs: number, rel: number, what: string) =>
  assert.ok(Math.abs(got - want) <= abs + rel * Math.abs(want), `${what}: ${got}, expected ${want}`);

function allNear(got: ArrayLike<number>, want: ArrayLike<number>, abs: number, rel: number, what: string) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) near(got[i]!, want[i]!, abs, rel, `${what}[${i}]`);
}

for (const net of CASES) {
  test(`${label(net)}: raw outputs and Q-values match the float64 forward`, () => {
    const { layout } = lt.netInit(net, 1);
    const p = params(net, 1);
    const states = randomArray(9 * net.stateDim, uniformSource(2), -2, 2);
    const pass = refForward(net, layout, p, states);
    allNear(lt.headOutputs(net, p, states)[0]!, pass.out.flat(), 1e-5, 1e-5, 'outputs');
    allNear(lt.netForward(net, p, states), pass.out.flatMap((o) => refQ(net, o)), 1e-5, 1e-5, 'Q');
  });

  test(`${label(net)}: backward from any output gradient matches the float64 reverse pass and finite differences`, () => {
    const { layout } = lt.netInit(net, 3);
    const p = params(net, 3);
    const rand = uniformSource(4), rows = 5, width = net.nActions * perAction(net);
    const states = randomArray(rows * net.stateDim, rand, -1.5, 1.5);
    const dOut = Array.from({ length: rows }, () => Array.from({ length: width }, () => rand(-1, 1)));
    const got = lt.headBackward(net, p, states, [Float32Array.from(dOut.flat())]);
    allNear(got, refBackward(net, layout, p, refForward(net, layout, p, states), dOut), 1e-5, 1e-4, 'dL/dtheta (reverse pass)');
    const sum = (x: Float64Array) => refForward(net, layout, x, states).out.reduce((s, o, r) => s + o.reduce((t, y, j) => t + y * dOut[r]![j]!, 0), 0);
    allNear(got, finiteDifferences(p, sum), 1e-4, 1e-3, 'dL/dtheta (finite differences)');
  });

  test(`${label(net)}: the gradient of sum(dq * Q) through the head's Q-values matches finite differences (CQL's path)`, () => {
    const { layout } = lt.netInit(net, 5);
    const p = params(net, 5);
    const rand = uniformSource(6), rows = 4;
    const states = randomArray(rows * net.stateDim, rand, -1.5, 1.5), dq = randomArray(rows * net.nActions, rand);
    const sum = (x: Float64Array) => refForward(net, layout, x, states).out.reduce((s, o, r) => s + refQ(net, o).reduce((t, q, a) => t + q * dq[r * net.nActions + a]!, 0), 0);
    allNear(lt.netBackward(net, p, states, dq), finiteDifferences(p, sum), 1e-4, 1e-3, 'dL/dtheta');
  });

  for (const b of [1, 7, 64]) {
    test(`${label(net)}, batch ${b}: loss, TD signal and every gradient match the float64 reference and finite differences`, () => {
      const { layout } = lt.netInit(net, 7);
      const online = params(net, 7), target = params(net, 8);
      const doubleDqn = b !== 7;
      const batch = transitions(net, b, 9 + b, b === 1 ? net.hidden.length : 0);
      const got = lt.headLoss(net, online, target, batch, { doubleDqn, huberDelta: 1 });
      const both = Float32Array.from([...batch.states, ...batch.nextStates]);
      const lossOf = (x: ArrayLike<number>) => refLoss(net, refForward(net, layout, x, both), refForward(net, layout, target, batch.nextStates), batch, doubleDqn, 1);
      const want = lossOf(online);
      near(got.loss, want.loss, 1e-6, 1e-5, 'loss');
      near(got.tdMse, want.tdMse, 1e-6, 1e-5, 'td_mse');
      allNear(got.td, want.td, 1e-5, 1e-5, 'td');
      allNear(got.dOutputs, want.dOut.flat(), 1e-7, 1e-4, 'dL/d(outputs)');
      allNear(got.grads, refBackward(net, layout, online, refForward(net, layout, online, both), want.dOut), 1e-6, 1e-4, 'dL/dtheta (reverse pass)');
      allNear(got.grads, finiteDifferences(online, (x) => lossOf(x).loss), 1e-5, 1e-3, 'dL/dtheta (finite differences)');
    });
  }
}

test('C51 projection reference: mass is kept, a terminal lands on r, and T z outside the support is clamped', () => {
  const c51 = { atoms: 5, v_min: -2, v_max: 2 };
  const p = [0.1, 0.2, 0.3, 0.25, 0.15];
  for (const [r, d] of [[0.3, 0.9], [5, 0.99], [-7, 0.5], [1, 0]] as const)
    near(refProjection(c51, p, r, d).reduce((a, b) => a + b, 0), 1, 1e-12, 0, `mass for r ${r}, discount ${d}`);
  assert.deepEqual(refProjection(c51, p, 1, 0), [0, 0, 0, 1, 0]);
  assert.deepEqual(refProjection(c51, p, 0.5, 0).map((x) => Number(x.toFixed(12))), [0, 0, 0.5, 0.5, 0]);
  assert.deepEqual(refProjection(c51, p, 10, 1), [0, 0, 0, 0, 1]);
});

test('a C51 learner acts by the largest expected value and reports the greedy action\'s mean distribution', () => {
  const heads = HeadsSchema.parse({ main: 'c51', c51: { atoms: 11, v_min: -5, v_max: 5 } });
  const net: HeadsNetSpec = { stateDim: 4, nActions: 3, hidden: [16], dueling: true, heads };
  const learner = new lt.Learner(net, { lr: 1e-3, adamEps: 1e-8, gradClip: 10, batchSize: 16, doubleDqn: true, huberDelta: 1, target: { kind: 'hard', interval: 100 } }, 3);
  const batch = transitions(net, 16, 21);
  for (let i = 0; i < 20; i++) learner.step(batch);
  const { layout } = lt.netInit(net, 1);
  const w = learner.online();
  const states = randomArray(40 * 4, uniformSource(22), -2, 2);
  const pass = refForward(net, layout, w, states);
  const want = pass.out.map((o) => { const q = refQ(net, o); return q.indexOf(Math.max(...q)); });
  assert.deepEqual(Array.from(learner.greedy(states)), want);
  // The probe runs on the batch before the step's update: compare a step's report with the weights before it.
  const before = learner.online(), step = learner.step(batch);
  const dist = new Array<number>(11).fill(0);
  for (const o of refForward(net, layout, before, batch.states).out) {
    const q = refQ(net, o), a = q.indexOf(Math.max(...q));
    const logits = o.slice(a * 11, a * 11 + 11), top = Math.max(...logits), e = logits.map((x) => Math.exp(x - top)), s = e.reduce((x, y) => x + y, 0);
    e.forEach((x, j) => (dist[j]! += x / s / 16));
  }
  allNear(step.c51GreedyDist, dist, 1e-6, 1e-5, 'c51_greedy_dist');
  near(step.parts.main.loss, step.loss, 0, 0, 'the main part is the whole loss');
});
