// Spectral normalisation inside the CPU learner's step (native/src/model/network_spectral_norm.h;
// heads.spectral): after enough steps every normalised matrix's largest singular value, computed
// here in float64 by power iteration to convergence, sits at sigma_max; a bound above the weights'
// singular values changes nothing, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeadsSchema } from '../../common/config.ts';
import { largestSingularValue, learnerTesting, randomArray, uniformSource, type HeadsNetSpec, type LearnerBatch, type Slot } from './helpers/learner.ts';

const lt = learnerTesting();
const B = 16;

function net(sigmaMax: number, trunk: boolean, heads: boolean, main: 'q' | 'c51' = 'q'): HeadsNetSpec {
  return { stateDim: 6, nActions: 3, hidden: [32, 24], dueling: true, heads: HeadsSchema.parse({ main, c51: { atoms: 5 }, spectral: { sigma_max: sigmaMax, trunk, heads } }) };
}

function batch(seed: number): LearnerBatch {
  const rand = uniformSource(seed);
  return {
    states: randomArray(B * 6, rand), nextStates: randomArray(B * 6, rand), actions: Int32Array.from({ length: B }, (_, i) => i % 3),
    rewards: randomArray(B, rand, -1, 1), discounts: new Float32Array(B).fill(0.9), weights: new Float32Array(B).fill(1),
  };
}

const learner = (n: HeadsNetSpec) =>
  new lt.Learner(n, { lr: 1e-3, adamEps: 1e-8, gradClip: 10, batchSize: B, doubleDqn: true, huberDelta: 1, target: { kind: 'polyak', tau: 0.05 } }, 9);

/** The weight matrices of a layout: the trunk's, then the heads' layers. */
function matrices(n: HeadsNetSpec): { name: string; slot: Slot; head: boolean }[] {
  const { layout } = lt.netInit(n, 1);
  return [...layout.trunk.map((slot, l) => ({ name: `trunk ${l}`, slot, head: false })),
    ...layout.heads.flatMap((h) => h.layers.map((slot) => ({ name: `${h.name}.${slot.name}`, slot, head: true })))];
}
const sigmaOf = (w: Float32Array, s: Slot) => largestSingularValue(w.subarray(s.w, s.w + s.in * s.out), s.in, s.out);

for (const main of ['q', 'c51'] as const) {
  for (const [trunk, heads] of [[true, true], [true, false], [false, true]] as const) {
    test(`${main}, spectral normalisation of the ${[trunk && 'trunk', heads && 'heads'].filter(Boolean).join(' and ')}: after enough steps each normalised matrix's largest singular value is within 1 % of sigma_max`, () => {
      // The bound: half the smallest largest singular value of the init's matrices, so every one starts above it.
      const init = lt.netInit(net(1, trunk, heads, main), 9).params, all = matrices(net(1, trunk, heads, main));
      const sigmaMax = 0.5 * Math.min(...all.map((m) => sigmaOf(init, m.slot)));
      const n = net(sigmaMax, trunk, heads, main), l = learner(n), b = batch(2);
      for (let i = 0; i < 300; i++) {
        const r = l.step(b);
        assert.ok(r.sigmaMaxSeen > sigmaMax, `step ${i}: sigma_max_seen ${r.sigmaMaxSeen} should exceed the bound before scaling`);
      }
      const w = l.online();
      for (const m of all) {
        const sigma = sigmaOf(w, m.slot);
        if (m.head ? heads : trunk) assert.ok(Math.abs(sigma - sigmaMax) <= 0.01 * sigmaMax, `${m.name}: sigma ${sigma}, bound ${sigmaMax}`);
        else assert.ok(sigma > 1.5 * sigmaMax, `${m.name} is not normalised: sigma ${sigma}, bound ${sigmaMax}`);
      }
    });
  }

  test(`${main}: with sigma_max above every matrix's largest singular value the run is the run without spectral normalisation, bit for bit`, () => {
    const init = lt.netInit(net(1, true, true, main), 9).params;
    const sigmaMax = 4 * Math.max(...matrices(net(1, true, true, main)).map((m) => sigmaOf(init, m.slot)));
    const bounded = learner(net(sigmaMax, true, true, main)), free = learner(net(0, true, true, main)), b = batch(3);
    for (let i = 0; i < 50; i++) {
      const r = bounded.step(b), s = free.step(b);
      assert.ok(r.sigmaMaxSeen > 0 && r.sigmaMaxSeen <= sigmaMax, `step ${i}: sigma_max_seen ${r.sigmaMaxSeen}`);
      assert.equal(s.sigmaMaxSeen, 0);
      assert.equal(r.loss, s.loss, `step ${i}: loss`);
    }
    assert.deepEqual(new Uint32Array(bounded.online().buffer), new Uint32Array(free.online().buffer));
    assert.deepEqual(new Uint32Array(bounded.target().buffer), new Uint32Array(free.target().buffer));
  });
}
