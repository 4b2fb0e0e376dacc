// The bootstrapped ensemble (native/src/model/ensemble_head.h; Osband et al. 2016, sec. 3 and
// Algorithm 1) through the CPU learner: its loss and every gradient tensor against a float64
// reference and central differences, its bootstrap masks (drawn from replay slots and
// generations), its disagreement scalar and its share of the gradient budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeadsSchema, parseRunConfig } from '../../common/config.ts';
import { loadAddon } from '../addon.ts';
import { rulesTesting } from '../rules_testing.ts';
import { ReplayBuffer } from '../replay.ts';
import { readScalars } from '../scalars.ts';
import { createTrainer } from '../trainer.ts';
import { dense, learnerTesting, randomArray, uniformSource, type HeadLayout, type HeadsLayout, type HeadsNetSpec, type LearnerBatch, type Slot, type TestLearner } from './helpers/learner.ts';

const lt = learnerTesting();
const rt = rulesTesting();
const SEED = 11;
const GAMMA = 0.99;
const DELTA = 1;

/** Learner options: clipping off (gradClip 0) unless patched, the target never copied. */
function options(batchSize: number, patch: { gradClip?: number; doubleDqn?: boolean } = {}) {
  return { lr: 1e-3, adamEps: 1e-8, gradClip: 0, batchSize, doubleDqn: true, huberDelta: DELTA, target: { kind: 'hard' as const, interval: 1e9 }, ...patch };
}
const ensembleOf = (net: HeadsNetSpec) => net.heads.ensemble;
/** Head k's layers among the ensemble's (layout.heads[1]): [value, advantage] or [q]. */
const headLayers = (net: HeadsNetSpec, layout: HeadsLayout, k: number): HeadLayout['layers'] => {
  const per = net.dueling ? 2 : 1;
  return layout.heads[1]!.layers.slice(k * per, (k + 1) * per);
};
const row = (x: ArrayLike<number>, i: number, n: number) => Array.from({ length: n }, (_, j) => x[i * n + j]!);
const argmax = (q: number[]) => q.indexOf(Math.max(...q));

// ---- Float64 reference ----

/** The trunk's pre-activations z_l and activations h_l (h_0 = x) of one state. */
function trunk(p: ArrayLike<number>, layout: HeadsLayout, x: number[]): { z: number[][]; h: number[][] } {
  const z: number[][] = [], h: number[][] = [x];
  for (const s of layout.trunk) {
    z.push(dense(p, s, h.at(-1)!, false));
    h.push(z.at(-1)!.map((v) => Math.max(0, v)));
  }
  return { z, h };
}

/** Q [A] of one Q head (layers [value, advantage] or [q]) on features f: V + A - mean(A), or the q layer. */
function headQ(p: ArrayLike<number>, layers: Slot[], f: number[], dueling: boolean): number[] {
  if (!dueling) return dense(p, layers[0]!, f, false);
  const v = dense(p, layers[0]!, f, false)[0]!, a = dense(p, layers[1]!, f, false);
  const mean = a.reduce((s, x) => s + x, 0) / a.length;
  return a.map((x) => v + x - mean);
}

/** Adds one row's dense-layer gradients into grad (dW += x ⊗ dy, db += dy) and dy·Wᵀ into dx. */
function denseBackward(p: ArrayLike<number>, s: Slot, x: number[], dy: number[], grad: Float64Array, dx: number[]): void {
  for (let j = 0; j < s.out; j++) grad[s.b + j]! += dy[j]!;
  for (let i = 0; i < s.in; i++)
    for (let j = 0; j < s.out; j++) {
      grad[s.w + i * s.out + j]! += x[i]! * dy[j]!;
      dx[i]! += p[s.w + i * s.out + j]! * dy[j]!;
    }
}

const huber = (x: number) => (Math.abs(x) <= DELTA ? 0.5 * x * x : DELTA * (Math.abs(x) - 0.5 * DELTA));

/**
 * The ensemble's loss L = (1/K) sum_k (1/B) sum_i m_ik w_i huber(y_ik - Q_k(s_i, a_i)) with each
 * head's own (Double) DQN target, and dL/dparams [layout.size] by hand-written backpropagation
 * through each head and the trunk, all in float64. masks [B x K] as rulesTesting draws them.
 */
function ensembleReference(net: HeadsNetSpec, layout: HeadsLayout, online: Float32Array, target: Float32Array, b: LearnerBatch, masks: Uint8Array,
  doubleDqn: boolean): { loss: number; grad: Float64Array } {
  const k = ensembleOf(net).heads, nb = b.actions.length, d = net.stateDim, nA = net.nActions;
  const grad = new Float64Array(layout.size);
  let loss = 0;
  for (let i = 0; i < nb; i++) {
    const { h } = trunk(online, layout, row(b.states, i, d));
    const f = h.at(-1)!;
    const fNextOnline = trunk(online, layout, row(b.nextStates, i, d)).h.at(-1)!;
    const fNextTarget = trunk(target, layout, row(b.nextStates, i, d)).h.at(-1)!;
    const dF = new Array<number>(f.length).fill(0);
    for (let j = 0; j < k; j++) {
      const layers = headLayers(net, layout, j);
      const q = headQ(online, layers, f, net.dueling);
      const qNextTarget = headQ(target, layers, fNextTarget, net.dueling);
      const aStar = argmax(doubleDqn ? headQ(online, layers, fNextOnline, net.dueling) : qNextTarget);
      const td = b.rewards[i]! + b.discounts[i]! * qNextTarget[aStar]! - q[b.actions[i]!]!;
      const c = (masks[i * k + j]! * b.weights[i]!) / (nb * k);
      loss += c * huber(td);
      const dq = new Array<number>(nA).fill(0);
      dq[b.actions[i]!] = -c * Math.max(-DELTA, Math.min(DELTA, td));
      if (net.dueling) {
        const sum = dq.reduce((s, x) => s + x, 0);
        denseBackward(online, layers[0]!, f, [sum], grad, dF);
        denseBackward(online, layers[1]!, f, dq.map((x) => x - sum / nA), grad, dF);
      } else denseBackward(online, layers[0]!, f, dq, grad, dF);
    }
    let dy = dF;
    for (let l = layout.trunk.length - 1; l >= 0; l--) {
      const s = layout.trunk[l]!;
      const dz = dy.map((g, j) => (h[l + 1]![j]! > 0 ? g : 0));
      const dx = new Array<number>(s.in).fill(0);
      denseBackward(online, s, h[l]!, dz, grad, dx);
      dy = dx;
    }
  }
  return { loss, grad };
}

// ---- Batches ----

type Kind = 'terminal' | 'truncated' | 'nstep';
/** Margin kept from every kink of the loss (ReLU at 0, a change of argmax at s') so central differences see a smooth function. */
const MARGIN = 0.02;

/**
 * A batch of transitions of the given kinds (terminal: discount 0; truncated: a one-step
 * bootstrap, discount gamma; nstep: a 3-step reward sum, discount gamma^3), random replay slots
 * and generations. A row whose s has a trunk pre-activation within MARGIN of 0, or whose s' has
 * two online Q-values of a head within MARGIN (Double DQN's argmax), is drawn again.
 */
function smoothBatch(net: HeadsNetSpec, layout: HeadsLayout, online: Float32Array, kinds: Kind[], seed: number): LearnerBatch {
  const rand = uniformSource(seed), d = net.stateDim, nb = kinds.length;
  const b: LearnerBatch = {
    states: new Float32Array(nb * d), nextStates: new Float32Array(nb * d), actions: new Int32Array(nb), rewards: new Float32Array(nb),
    discounts: new Float32Array(nb), weights: new Float32Array(nb), slots: new Int32Array(nb), generations: new Uint32Array(nb),
  };
  const smooth = (s: Float32Array, sNext: Float32Array) => {
    if (trunk(online, layout, Array.from(s)).z.some((z) => z.some((v) => Math.abs(v) < MARGIN))) return false;
    const f = trunk(online, layout, Array.from(sNext)).h.at(-1)!;
    return Array.from({ length: ensembleOf(net).heads }, (_, k) => headQ(online, headLayers(net, layout, k), f, net.dueling).sort((x, y) => y - x))
      .every((q) => q[0]! - q[1]! > MARGIN);
  };
  kinds.forEach((kind, i) => {
    let s: Float32Array, sNext: Float32Array;
    do {
      s = randomArray(d, rand);
      sNext = randomArray(d, rand);
    } while (!smooth(s, sNext));
    b.states.set(s, i * d);
    b.nextStates.set(sNext, i * d);
    b.actions[i] = Math.floor(rand(0, net.nActions));
    const r = randomArray(3, rand);
    b.rewards[i] = kind === 'nstep' ? r[0]! + GAMMA * r[1]! + GAMMA ** 2 * r[2]! : r[0]!;
    b.discounts[i] = kind === 'terminal' ? 0 : kind === 'truncated' ? GAMMA : GAMMA ** 3;
    b.weights[i] = rand(0.2, 1);
    b.slots![i] = Math.floor(rand(0, 1 << 20));
    b.generations![i] = Math.floor(rand(0, 8));
  });
  return b;
}

const masksOf = (net: HeadsNetSpec, b: LearnerBatch, p = ensembleOf(net).bootstrap_p) =>
  rt.bootstrapMasks(SEED, Uint32Array.from(b.slots!), b.generations!, ensembleOf(net).heads, p);

/** A learner of `net` whose target differs from its online network. */
function learnerOf(net: HeadsNetSpec, batchSize: number, patch: { gradClip?: number; doubleDqn?: boolean } = {}): { l: TestLearner; online: Float32Array; target: Float32Array } {
  const l = new lt.Learner(net, options(batchSize, patch), SEED);
  const online = l.online(), rand = uniformSource(5);
  const target = online.map((w) => w + rand(-0.05, 0.05));
  l.setParams(online, target);
  return { l, online, target };
}

/** The ensemble part's loss and unclipped gradient after one step from (online, target). */
function ensembleStep(l: TestLearner, online: Float32Array, target: Float32Array, b: LearnerBatch) {
  l.setParams(online, target);
  const part = l.step(b).parts.ensemble;
  assert.ok(part.gradient, 'the learner has an ensemble part');
  return { ...part, gradient: part.gradient };
}

/** Every tensor of the network with its name: the trunk's, each head's layers' (W then b). */
function tensors(layout: HeadsLayout): { name: string; start: number; end: number }[] {
  const out: { name: string; start: number; end: number }[] = [];
  const add = (name: string, s: Slot) => out.push({ name: `${name}.W`, start: s.w, end: s.b }, { name: `${name}.b`, start: s.b, end: s.b + s.out });
  layout.trunk.forEach((s, l) => add(`trunk${l}`, s));
  for (const h of layout.heads) for (const s of h.layers) add(`${h.name}.${s.name}`, s);
  return out;
}

const NETS: HeadsNetSpec[] = [
  { stateDim: 5, nActions: 3, hidden: [6], dueling: true, heads: HeadsSchema.parse({ ensemble: { heads: 3, bootstrap_p: 0.5, share: 0.1 } }) },
  { stateDim: 4, nActions: 2, hidden: [5, 4], dueling: false, heads: HeadsSchema.parse({ ensemble: { heads: 3, bootstrap_p: 0.5, share: 0.1 } }) },
];
const CASES: { name: string; kinds: Kind[] }[] = [
  { name: 'batch 1, truncated', kinds: ['truncated'] },
  { name: 'batch 1, terminal', kinds: ['terminal'] },
  { name: 'batch 7', kinds: Array.from({ length: 7 }, (_, i) => (['terminal', 'truncated', 'nstep'] as const)[i % 3]!) },
  { name: 'batch 64', kinds: Array.from({ length: 64 }, (_, i) => (['terminal', 'truncated', 'nstep'] as const)[i % 3]!) },
];

test('the ensemble loss and every gradient tensor match a float64 reference and central differences (batch 1, 7, 64; two trunks; terminal, truncated, n-step)', () => {
  for (const [n, net] of NETS.entries()) {
    const { layout } = lt.netInit(net, 1);
    for (const doubleDqn of [true, false]) {
      for (const c of CASES) {
        const where = `net ${n} (${net.dueling ? 'dueling' : 'plain'}, hidden ${net.hidden}), ${doubleDqn ? 'Double DQN' : 'DQN'}, ${c.name}`;
        const { l, online, target } = learnerOf(net, c.kinds.length, { doubleDqn });
        const b = smoothBatch(net, layout, online, c.kinds, 100 + n);
        const part = ensembleStep(l, online, target, b);
        const masks = masksOf(net, b);
        assert.ok(masks.includes(1), `${where}: some head trains on the batch`);
        const ref = ensembleReference(net, layout, online, target, b, masks, doubleDqn);
        assert.ok(Math.abs(part.loss - ref.loss) <= 1e-6 * (1e-3 + ref.loss), `${where}: loss ${part.loss} vs float64 ${ref.loss}`);
        for (const t of tensors(layout)) {
          const g = part.gradient.subarray(t.start, t.end), r = ref.grad.subarray(t.start, t.end);
          if (t.name.startsWith('q.')) {
            assert.ok(g.every((x) => x === 0), `${where}: the main head's ${t.name} is not the ensemble's`);
            continue;
          }
          const scale = Math.max(1e-3, ...Array.from(r, Math.abs));
          for (let i = 0; i < g.length; i++) {
            assert.ok(Math.abs(g[i]! - r[i]!) <= 1e-5 * scale, `${where}: ${t.name}[${i}] = ${g[i]} vs float64 ${r[i]}`);
            // Central difference of the learner's own loss: (L(w + e) - L(w - e)) / (2e), e the f32 step actually taken.
            const j = t.start + i, w = online[j]!;
            const plus = Float32Array.from(online), minus = Float32Array.from(online);
            plus[j] = w + 1e-3;
            minus[j] = w - 1e-3;
            const fd = (ensembleStep(l, plus, target, b).loss - ensembleStep(l, minus, target, b).loss) / (plus[j]! - minus[j]!);
            assert.ok(Math.abs(fd - g[i]!) <= 2e-3 * scale, `${where}: ${t.name}[${i}] = ${g[i]} vs central difference ${fd}`);
          }
        }
      }
    }
  }
});

/** `params` with every ensemble head's layers overwritten by the main head's (same shapes: both are Q heads). */
function ensembleOfMainHead(net: HeadsNetSpec, layout: HeadsLayout, params: Float32Array): Float32Array {
  const out = Float32Array.from(params), main = layout.heads[0]!.layers;
  for (let k = 0; k < ensembleOf(net).heads; k++)
    headLayers(net, layout, k).forEach((s, i) => out.set(params.subarray(main[i]!.w, main[i]!.b + main[i]!.out), s.w));
  return out;
}

test('with p = 1 every head trains on every transition: K copies of the main head have its loss and 1/K of its gradient each', () => {
  for (const dueling of [true, false]) {
    const net: HeadsNetSpec = { stateDim: 4, nActions: 3, hidden: [8, 8], dueling, heads: HeadsSchema.parse({ ensemble: { heads: 4, bootstrap_p: 1, share: 0.1 } }) };
    const { layout } = lt.netInit(net, 1);
    const { l, online, target } = learnerOf(net, 32);
    const b = smoothBatch(net, layout, online, Array.from({ length: 32 }, (_, i) => (['terminal', 'truncated', 'nstep'] as const)[i % 3]!), 7);
    assert.ok(masksOf(net, b).every((m) => m === 1), 'p = 1 keeps every transition in every head');
    l.setParams(ensembleOfMainHead(net, layout, online), ensembleOfMainHead(net, layout, target));
    const { main, ensemble } = l.step(b).parts;
    assert.ok(Math.abs(ensemble.loss - main.loss) <= 1e-12 * main.loss, `ensemble loss ${ensemble.loss} vs main ${main.loss}`);
    const mainLayers = layout.heads[0]!.layers;
    for (let k = 0; k < 4; k++)
      headLayers(net, layout, k).forEach((s, i) => {
        const m = mainLayers[i]!;
        for (let j = 0; j < s.b + s.out - s.w; j++) {
          const want = main.gradient![m.w + j]! / 4;
          assert.ok(Math.abs(ensemble.gradient![s.w + j]! - want) <= 1e-6 * (1e-6 + Math.abs(want)), `head ${k} ${s.name}[${j}]`);
        }
      });
    // The trunk's gradient sums K quarter-size contributions of the main head's.
    const trunkEnd = layout.trunk.at(-1)!.b + layout.trunk.at(-1)!.out;
    for (let j = 0; j < trunkEnd; j++)
      assert.ok(Math.abs(ensemble.gradient![j]! - main.gradient![j]!) <= 1e-5 * (1e-4 + Math.abs(main.gradient![j]!)), `trunk[${j}]`);
  }
});

test('a transition a head leaves out does not reach that head: its gradient is unchanged when the transition changes', () => {
  const net = NETS[0]!;
  const { layout } = lt.netInit(net, 1);
  const { l, online, target } = learnerOf(net, 16);
  const b = smoothBatch(net, layout, online, Array.from({ length: 16 }, () => 'truncated' as const), 9);
  const masks = masksOf(net, b), k = ensembleOf(net).heads;
  // A transition kept by one head and left out by another.
  const i = Array.from({ length: 16 }, (_, x) => x).find((x) => masks.subarray(x * k, x * k + k).includes(0) && masks.subarray(x * k, x * k + k).includes(1));
  assert.ok(i !== undefined, 'the batch has a transition with mixed masks');
  const out = masks.subarray(i * k, i * k + k).indexOf(0), kept = masks.subarray(i * k, i * k + k).indexOf(1);
  const before = ensembleStep(l, online, target, b).gradient;
  const changed: LearnerBatch = { ...b, states: Float32Array.from(b.states), nextStates: Float32Array.from(b.nextStates), rewards: Float32Array.from(b.rewards), actions: Int32Array.from(b.actions) };
  for (let j = 0; j < net.stateDim; j++) {
    changed.states[i * net.stateDim + j] = 3 - j;
    changed.nextStates[i * net.stateDim + j] = j - 2;
  }
  changed.rewards[i] = 50;
  changed.actions[i] = (b.actions[i]! + 1) % net.nActions;
  const after = ensembleStep(l, online, target, changed).gradient;
  const slice = (g: Float32Array, h: number) => headLayers(net, layout, h).flatMap((s) => Array.from(g.subarray(s.w, s.b + s.out)));
  assert.deepEqual(slice(after, out), slice(before, out), `head ${out} leaves transition ${i} out`);
  assert.notDeepEqual(slice(after, kept), slice(before, kept), `head ${kept} trains on transition ${i}`);
});

test('bootstrap masks in the learner follow the replay slot: kept while its generation holds, drawn afresh after an overwrite', () => {
  const k = 8, capacity = 4, d = 3;
  const net: HeadsNetSpec = { stateDim: d, nActions: 2, hidden: [8], dueling: true, heads: HeadsSchema.parse({ ensemble: { heads: k, bootstrap_p: 0.5, share: 0.1 } }) };
  const { layout } = lt.netInit(net, 1);
  const l = new lt.Learner(net, { ...options(1), lr: 1e-2 }, SEED);
  const replay = new ReplayBuffer({ capacity, stateDim: d, sampler: 'uniform', device: 'cpu', seed: 3 });
  const rand = uniformSource(4);
  const fill = () => replay.insertBatch({ states: randomArray(capacity * d, rand), actions: Int32Array.from({ length: capacity }, (_, i) => i % 2),
    rewards: randomArray(capacity, rand, 1, 2), nextStates: randomArray(capacity * d, rand), dones: new Uint8Array(capacity) });
  /** Which ensemble heads the one-transition batch moved: head k's layers' gradient is nonzero. */
  const trained = (part: { gradient: Float32Array }) => Uint8Array.from({ length: k }, (_, h) =>
    headLayers(net, layout, h).some((s) => part.gradient.subarray(s.w, s.b + s.out).some((x) => x !== 0)) ? 1 : 0);
  const seen: Map<number, { generation: number; mask: string }>[] = [new Map(), new Map()];
  for (const [round, byslot] of seen.entries()) {
    fill(); // every slot written again: its generation changes
    for (let step = 0; step < 40; step++) {
      const s = replay.sample(1);
      const part = l.step({ ...s, slots: s.indices }).parts.ensemble as { gradient: Float32Array };
      const mask = Array.from(rt.bootstrapMasks(SEED, Uint32Array.from(s.indices), s.generations, k, 0.5)).join('');
      assert.equal(Array.from(trained(part)).join(''), mask, `round ${round}, step ${step}: slot ${s.indices[0]} generation ${s.generations[0]}`);
      const earlier = byslot.get(s.indices[0]!);
      if (earlier) assert.deepEqual(earlier, { generation: s.generations[0]!, mask }, `slot ${s.indices[0]} keeps its generation and mask`);
      byslot.set(s.indices[0]!, { generation: s.generations[0]!, mask });
    }
  }
  assert.equal(seen[0]!.size, capacity, 'every slot was sampled in the first round');
  for (const [slot, first] of seen[0]!) {
    const second = seen[1]!.get(slot);
    if (second) assert.notEqual(second.generation, first.generation, `slot ${slot}'s overwrite changed its generation`);
  }
  const redrawn = [...seen[0]!].filter(([slot, first]) => seen[1]!.has(slot) && seen[1]!.get(slot)!.mask !== first.mask);
  assert.ok(redrawn.length > 0, 'an overwritten slot got a different mask');
  replay.close();
});

test('ensemble disagreement: identical heads give 0; hand-built heads give the mean over the batch of the std at the main head\'s greedy action', () => {
  // Identical heads: every ensemble head a copy of the main head.
  const net = NETS[0]!;
  const { layout } = lt.netInit(net, 1);
  const { l, online, target } = learnerOf(net, 16);
  const b = smoothBatch(net, layout, online, Array.from({ length: 16 }, () => 'nstep' as const), 13);
  assert.ok(l.step(b).ensembleDisagreement > 0, 'randomly initialised heads disagree');
  l.setParams(ensembleOfMainHead(net, layout, online), target);
  assert.equal(l.step(b).ensembleDisagreement, 0);

  // Hand-built: features (relu(s), relu(-s)); the main head's Q = features, so it picks action 0
  // for s > 0 and action 1 for s < 0; head k's Q = its bias (weights 0): at action 0 the heads say
  // {1, 1, 3, 3} (std 1), at action 1 {0, 0, 0, 4} (std sqrt(3)).
  const hand: HeadsNetSpec = { stateDim: 1, nActions: 2, hidden: [2], dueling: false, heads: HeadsSchema.parse({ ensemble: { heads: 4, bootstrap_p: 0.5, share: 0.1 } }) };
  const h = lt.netInit(hand, 1).layout;
  const p = new Float32Array(h.size);
  p.set([1, -1], h.trunk[0]!.w);
  p.set([1, 0, 0, 1], h.heads[0]!.layers[0]!.w);
  const biases = [[1, 0], [1, 0], [3, 0], [3, 4]];
  biases.forEach((bias, k) => p.set(bias, headLayers(hand, h, k)[0]!.b));
  const learner = new lt.Learner(hand, options(3), SEED);
  learner.setParams(p, p);
  const states = Float32Array.from([1, -1, 2]); // greedy actions 0, 1, 0
  const r = learner.step({ states, nextStates: states, actions: new Int32Array(3), rewards: new Float32Array(3), discounts: new Float32Array(3),
    weights: new Float32Array(3).fill(1) });
  const want = (1 + Math.sqrt(3) + 1) / 3;
  assert.ok(Math.abs(r.ensembleDisagreement - want) <= 1e-12, `disagreement ${r.ensembleDisagreement}, want ${want}`);
});

test('gradient budget: over budget, the ensemble part is clipped to its share of grad_clip and the main head to the rest', () => {
  const share = 0.25, gradClip = 1e-3;
  const net: HeadsNetSpec = { stateDim: 5, nActions: 3, hidden: [16, 16], dueling: true, heads: HeadsSchema.parse({ ensemble: { heads: 4, bootstrap_p: 0.5, share } }) };
  const { layout } = lt.netInit(net, 1);
  const { l, online } = learnerOf(net, 32, { gradClip });
  const b = smoothBatch(net, layout, online, Array.from({ length: 32 }, (_, i) => (['terminal', 'truncated', 'nstep'] as const)[i % 3]!), 17);
  const r = l.step(b);
  const { main, ensemble } = r.parts;
  assert.deepEqual(Object.keys(r.parts).filter((k) => r.parts[k as keyof typeof r.parts].gradient), ['main', 'ensemble']);
  const norm = (g: Float32Array) => Math.sqrt(g.reduce((s, x) => s + x * x, 0));
  for (const [kind, part, budget] of [['main', main, (1 - share) * gradClip], ['ensemble', ensemble, share * gradClip]] as const) {
    assert.ok(part.gradNorm > 10 * budget, `${kind}: over its budget (${part.gradNorm})`);
    assert.ok(Math.abs(part.gradNorm - norm(part.gradient!)) <= 1e-6 * part.gradNorm, `${kind}: norm before the clip`);
    assert.ok(Math.abs(part.clipped - budget) <= 1e-5 * budget, `${kind}: clipped to ${part.clipped}, budget ${budget}`);
  }
  assert.equal(r.loss, main.loss + ensemble.loss, 'the step loss is the parts\' sum');
  const sum = main.gradient!.map((x, i) => x + ensemble.gradient![i]!);
  assert.ok(Math.abs(r.gradNorm - norm(sum)) <= 1e-5 * r.gradNorm, 'grad norm: the norm of the summed gradients before any clip');
});

test('a Q + ensemble run trains in the native CPU trainer and reports the ensemble part and its disagreement', async () => {
  const config = parseRunConfig({
    seed: 2, env: { kind: 'cartpole', num_envs: 2 }, network: { hidden: [16] }, replay: { capacity: 512 },
    optim: { batch_size: 16, grad_clip: 10 }, schedule: { learning_starts: 64, q_stats_interval: 5 },
    heads: { ensemble: { heads: 3, bootstrap_p: 0.5, share: 0.2 } },
  });
  const t = createTrainer({ config, backend: 'cpu' });
  assert.equal((await t.run(20)).steps, 20);
  const s = readScalars(t.scalars, loadAddon().scalarLayout);
  assert.equal(s.nan_flags, 0);
  assert.equal(s.q_stats_step, 20);
  assert.ok(s.ensemble_loss! > 0 && s.ensemble_grad_norm! > 0 && s.ensemble_disagreement! > 0, 'the ensemble trains and its heads disagree');
  assert.ok(Math.abs(s.loss! - (s.main_loss! + s.ensemble_loss!)) <= 1e-12 * s.loss!, 'the step loss is the parts\' sum');
  t.close();
});
