// Child process of hostile.test.ts: calls the addon's bindings with hostile arguments (wrong
// types, wrong lengths, detached buffers, 2^31 - 1, 1e12, negative and NaN sizes) and prints one
// JSON line per call: {call, threw, name, message}. A binding that aborts the process instead of
// throwing ends this script before its last line ("done"), which the test detects.
import { HeadsSchema, parseRunConfig } from '../../../common/config.ts';
import { loadAddon } from '../../addon.ts';

const a = loadAddon() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const lt = a.learnerTesting;
const replay = () => {
  const r = new a.ReplayBuffer({ capacity: 64, stateDim: 4, sampler: 'proportional', alpha: 0.6, beta0: 0.4, device: 'cpu' });
  const n = 8;
  r.insertBatch({ states: new Float32Array(n * 4), actions: new Int32Array(n), rewards: new Float32Array(n), nextStates: new Float32Array(n * 4), dones: new Uint8Array(n) });
  return r;
};
const detached = (f: Float32Array | Float64Array | Uint32Array = new Float32Array(32)) => {
  structuredClone(f.buffer, { transfer: [f.buffer] });
  return f;
};
const batch = (patch: Record<string, unknown>) =>
  ({ states: new Float32Array(8), actions: new Int32Array(2), rewards: new Float32Array(2), nextStates: new Float32Array(8), dones: new Uint8Array(2), ...patch });

const calls: Record<string, () => unknown> = {};
for (const n of [2 ** 31 - 1, 1e12, -1, Number.NaN, '8', undefined]) calls[`ReplayBuffer.sample(${String(n)})`] = () => replay().sample(n);
for (const c of [1e12, -5, Number.NaN, 2 ** 31 - 1]) calls[`new ReplayBuffer(capacity ${c})`] = () => new a.ReplayBuffer({ capacity: c, stateDim: 4, device: 'cpu' });
calls['new ReplayBuffer(stateDim 2^31-1)'] = () => new a.ReplayBuffer({ capacity: 64, stateDim: 2 ** 31 - 1, device: 'cpu' });
calls['insertBatch(states of the wrong length)'] = () => replay().insertBatch(batch({ states: new Float32Array(7) }));
calls['insertBatch(detached states)'] = () => replay().insertBatch(batch({ states: detached() }));
calls['insertBatch(states as a plain array)'] = () => replay().insertBatch(batch({ states: [1, 2, 3] }));
calls['updatePriorities(detached td)'] = () => replay().updatePriorities(new Int32Array(32), new Uint32Array(32), detached());
calls['matmul(2^20 x 2^20)'] = () => lt.matmul('nn', 'auto', 2 ** 20, 2 ** 20, 1, new Float32Array(2 ** 20), new Float32Array(2 ** 20));
calls['matmul(m = 1e12)'] = () => lt.matmul('nn', 'auto', 1e12, 1, 1, new Float32Array(1), new Float32Array(1));
calls['matmul(detached a)'] = () => lt.matmul('nn', 'auto', 4, 8, 1, detached(), new Float32Array(8));
calls['netInit(stateDim 2^31-1)'] = () => lt.netInit({ stateDim: 2 ** 31 - 1, nActions: 2, hidden: [4], dueling: true }, 1);
calls['netInit(nActions NaN)'] = () => lt.netInit({ stateDim: 4, nActions: Number.NaN, hidden: [4], dueling: true }, 1);
const c51Net = { stateDim: 2, nActions: 2, hidden: [4], dueling: true, heads: HeadsSchema.parse({ main: 'c51', c51: { atoms: 5 } }) };
const c51Params = () => lt.netInit(c51Net, 1).params as Float32Array;
const lossBatch = (patch: Record<string, unknown>) => ({ states: new Float32Array(4), nextStates: new Float32Array(4), actions: new Int32Array(2), rewards: new Float32Array(2), discounts: new Float32Array(2), weights: new Float32Array(2), ...patch });
calls['netInit(heads.c51.atoms 1000)'] = () => lt.netInit({ ...c51Net, heads: { ...c51Net.heads, c51: { atoms: 1000, v_min: 0, v_max: 1 } } }, 1);
calls['netInit(heads as a string)'] = () => lt.netInit({ ...c51Net, heads: 'c51' }, 1);
calls['headOutputs(params of another network)'] = () => lt.headOutputs(c51Net, new Float32Array(3), new Float32Array(2));
calls['headBackward(dOutputs of the wrong length)'] = () => lt.headBackward(c51Net, c51Params(), new Float32Array(2), [new Float32Array(3)]);
calls['headBackward(dOutputs not an array)'] = () => lt.headBackward(c51Net, c51Params(), new Float32Array(2), new Float32Array(10));
calls['headLoss(action 2^31-1)'] = () => lt.headLoss(c51Net, c51Params(), c51Params(), lossBatch({ actions: Int32Array.of(0, 2 ** 31 - 1) }), { doubleDqn: true, huberDelta: 1 });
calls['headLoss(2^17 transitions)'] = () => lt.headLoss(c51Net, c51Params(), c51Params(), lossBatch({ actions: new Int32Array(2 ** 17) }), { doubleDqn: true, huberDelta: 1 });
calls['headLoss(detached target)'] = () => lt.headLoss(c51Net, c51Params(), detached(), lossBatch({}), { doubleDqn: true, huberDelta: 1 });
calls['headLoss(slots of the wrong length)'] = () => lt.headLoss(c51Net, c51Params(), c51Params(), lossBatch({ slots: new Int32Array(3) }), { doubleDqn: true, huberDelta: 1 });
calls['headLoss(step -1)'] = () => lt.headLoss(c51Net, c51Params(), c51Params(), lossBatch({}), { doubleDqn: true, huberDelta: 1, step: -1 });
const ensembleNet = (ensemble: unknown) => ({ stateDim: 4, nActions: 2, hidden: [4], dueling: true, heads: { ...HeadsSchema.parse({}), ensemble } });
calls['netInit(ensemble heads 2^31-1)'] = () => lt.netInit(ensembleNet({ heads: 2 ** 31 - 1, bootstrap_p: 0.5, share: 0.1 }), 1);
calls['netInit(ensemble bootstrap_p 0)'] = () => lt.netInit(ensembleNet({ heads: 2, bootstrap_p: 0, share: 0.1 }), 1);
calls['netInit(ensemble share 1)'] = () => lt.netInit(ensembleNet({ heads: 2, bootstrap_p: 0.5, share: 1 }), 1);
calls['netInit(ensemble as a number)'] = () => lt.netInit(ensembleNet(4), 1);
const learner = () => new lt.Learner(ensembleNet({ heads: 2, bootstrap_p: 0.5, share: 0.1 }),
  { lr: 1e-3, adamEps: 1e-8, gradClip: 1, batchSize: 2, doubleDqn: true, huberDelta: 1, target: { kind: 'hard', interval: 10 } }, 1);
const learnerBatch = (patch: Record<string, unknown>) => ({ states: new Float32Array(8), nextStates: new Float32Array(8), actions: new Int32Array(2),
  rewards: new Float32Array(2), discounts: new Float32Array(2), weights: new Float32Array(2), ...patch });
calls['Learner.step(slots of the wrong length)'] = () => learner().step(learnerBatch({ slots: new Int32Array(3) }));
calls['Learner.step(slot -1)'] = () => learner().step(learnerBatch({ slots: Int32Array.from([0, -1]) }));
calls['Learner.step(detached generations)'] = () => learner().step(learnerBatch({ generations: detached(new Uint32Array(2)) }));
calls['Learner.setParams(online of the wrong length)'] = () => learner().setParams(new Float32Array(3), learner().target());
calls['Learner.setParams(detached target)'] = () => learner().setParams(learner().online(), detached());
const tiny = { stateDim: 4, nActions: 2, hidden: [4], dueling: true };
const heads = parseRunConfig({ env: { kind: 'cartpole' } }).heads;
calls['netInit(heads a number)'] = () => lt.netInit({ ...tiny, heads: 5 }, 1);
calls['netInit(heads.main unknown)'] = () => lt.netInit({ ...tiny, heads: { ...heads, main: 'qr' } }, 1);
calls['netInit(heads.iqn.embedding 2^31-1)'] = () => lt.netInit({ ...tiny, heads: { ...heads, main: 'iqn', iqn: { ...heads.iqn, embedding: 2 ** 31 - 1 } } }, 1);
calls['netInit(heads.iqn without n)'] = () => lt.netInit({ ...tiny, heads: { ...heads, iqn: { ...heads.iqn, n: undefined } } }, 1);
calls['netInit(IQN main head with CQL)'] = () => lt.netInit({ ...tiny, heads: { ...heads, main: 'iqn', cql: { alpha: 1, share: 0.1 } } }, 1);
const tinyParams = lt.netInit(tiny, 1).params;
calls['netForward(act as a string)'] = () => lt.netForward(tiny, tinyParams, new Float32Array(4), 'act');
calls['netForward(act.step -1)'] = () => lt.netForward(tiny, tinyParams, new Float32Array(4), { seed: 1, step: -1 });
calls['netForward(act.seed NaN)'] = () => lt.netForward(tiny, tinyParams, new Float32Array(4), { seed: Number.NaN, step: 1 });
calls['new Env(num_envs 2^31-1)'] = () => new a.Env({ kind: 'cartpole', num_envs: 2 ** 31 - 1 }, undefined, false);
calls['philox4x32_10(number)'] = () => a.philox4x32_10(2 ** 31 - 1);
calls['sumTreeFind(detached masses)'] = () => a.sumTreeFind(new Float64Array(4), detached());
const rt = a.rulesTesting;
const shares = { iqn: { enabled: true, share: 0.2 }, ensemble: { enabled: false, share: 0.1 }, cql: { enabled: true, share: 0.1 } };
calls['softmax(empty)'] = () => rt.softmax(new Float32Array(0));
calls['softmax(Float64Array)'] = () => rt.softmax(new Float64Array(4));
calls['categoricalProjection(one atom)'] = () => rt.categoricalProjection(new Float64Array(1), -1, 1, 0, 0.9);
calls['categoricalProjection(detached p)'] = () => rt.categoricalProjection(detached(new Float64Array(5)), -1, 1, 0, 0.9);
calls['categoricalProjection(vMax = vMin)'] = () => rt.categoricalProjection(new Float64Array(5), 1, 1, 0, 0.9);
calls['categoricalProjection(discount NaN)'] = () => rt.categoricalProjection(new Float64Array(5), -1, 1, 0, Number.NaN);
calls['categoricalCrossEntropy(m of another length)'] = () => rt.categoricalCrossEntropy(new Float32Array(5), new Float64Array(4));
calls['categoricalQ(logits 2^31-1 as a number)'] = () => rt.categoricalQ(2 ** 31 - 1, -1, 1);
calls['quantileHuber(kappa 0)'] = () => rt.quantileHuber(1, 0.5, 0);
calls['quantileHuber(tau 2)'] = () => rt.quantileHuber(1, 2, 1);
calls['iqnCosineFeature(i 2^31-1)'] = () => rt.iqnCosineFeature(2 ** 31 - 1, 0.5);
calls['quantileFractions(2^20 rows x 2^20)'] = () => rt.quantileFractions(1, 'online', 0, 2 ** 20, 2 ** 20);
calls['quantileFractions(rows 1e12)'] = () => rt.quantileFractions(1, 'online', 0, 1e12, 8);
calls['quantileFractions(stream unknown)'] = () => rt.quantileFractions(1, 'both', 0, 4, 8);
calls['quantileFractions(seed -1)'] = () => rt.quantileFractions(-1, 'act', 0, 4, 8);
calls['cql(action 2^31-1)'] = () => rt.cql(new Float32Array(4), 2 ** 31 - 1);
calls['cql(action NaN)'] = () => rt.cql(new Float32Array(4), Number.NaN);
calls['cql(detached q)'] = () => rt.cql(detached(), 0);
calls['gradientBudget(share NaN)'] = () => rt.gradientBudget(1, { ...shares, cql: { enabled: true, share: Number.NaN } }, new Float64Array(4));
calls['gradientBudget(no parts)'] = () => rt.gradientBudget(1, undefined, new Float64Array(4));
calls['gradientBudget(enabled as a string)'] = () => rt.gradientBudget(1, { ...shares, iqn: { enabled: 'yes', share: 0.2 } }, new Float64Array(4));
calls['gradientBudget(norms of length 3)'] = () => rt.gradientBudget(1, shares, new Float64Array(3));
calls['bootstrapMasks(2^31-1 heads)'] = () => rt.bootstrapMasks(1, new Uint32Array(8), new Uint32Array(8), 2 ** 31 - 1, 0.5);
calls['bootstrapMasks(detached generations)'] = () => rt.bootstrapMasks(1, new Uint32Array(8), detached(new Uint32Array(8)), 1, 0.5);
calls['bootstrapMasks(p 1.5)'] = () => rt.bootstrapMasks(1, new Uint32Array(8), new Uint32Array(8), 1, 1.5);
calls['powerIterationVector(out 2^31-1)'] = () => rt.powerIterationVector(2 ** 31 - 1, 1, 0);
calls['powerIterationVector(matrix 2^24)'] = () => rt.powerIterationVector(8, 1, 2 ** 24);
calls['spectralNormalize(in 2^31-1)'] = () => rt.spectralNormalize(new Float32Array(8), 2 ** 31 - 1, 1, new Float32Array(1), 1, 1);
calls['spectralNormalize(steps 1e12)'] = () => rt.spectralNormalize(new Float32Array(8), 2, 4, new Float32Array(4), 1, 1e12);
calls['spectralNormalize(2^10 x 2^12, 2000 steps)'] = () => rt.spectralNormalize(new Float32Array(2 ** 22), 2 ** 10, 2 ** 12, new Float32Array(2 ** 12), 1, 2000);
calls['spectralNormalize(detached w)'] = () => rt.spectralNormalize(detached(), 4, 8, new Float32Array(8), 1, 1);
// Getters that shrink a resizable ArrayBuffer (or detach one) after another field was checked:
// every field is read before any is checked, so the check sees what the native code will use.
/** ES2024's resizable ArrayBuffer (Node 20 has it; this TypeScript lib does not declare it). */
type Resizable = ArrayBuffer & { resize(bytes: number): void };
const ResizableBuffer = ArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => Resizable;
const shrinkable = (floats: number) => new Float32Array(new ResizableBuffer(floats * 4, { maxByteLength: floats * 4 }));
const shrink = (a: Float32Array) => (a.buffer as Resizable).resize(0);
const shrinkingBatch = () => {
  const states = shrinkable(8);
  return { actions: new Int32Array(2), states, get rewards() { shrink(states); return new Float32Array(2); },
    nextStates: new Float32Array(8), dones: new Uint8Array(2) };
};
calls['insertBatch(the rewards getter shrinks states to 0 bytes)'] = () => replay().insertBatch(shrinkingBatch());
calls['adamUpdate(the w getter shrinks g to 0 bytes)'] = () => {
  const g = shrinkable(1024);
  return lt.adamUpdate({ t: 1, lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, gradScale: 1, g,
    get w() { shrink(g); return new Float32Array(1024); }, m: new Float32Array(1024), v: new Float32Array(1024) });
};
calls['Learner.step(the weights getter detaches states)'] = () => {
  const states = new Float32Array(8);
  return learner().step({ ...learnerBatch({ states }), get weights() { detached(states); return new Float32Array(2); } });
};
calls['netForward(the act.step getter shrinks states to 0 bytes)'] = () => {
  const states = shrinkable(4);
  return lt.netForward(tiny, tinyParams, states, { seed: 1, get step() { shrink(states); return 1; } });
};
// Scratch sized by the caller's rows is bounded before it is allocated (it aborted on std::bad_alloc).
const wide = { stateDim: 1, nActions: 2, hidden: [4096, 4096], dueling: true };
const wideParams = lt.netInit(wide, 1).params;
calls['netForward(2^16 rows x hidden [4096, 4096])'] = () => lt.netForward(wide, wideParams, new Float32Array(2 ** 16));
calls['netBackward(2^16 rows x hidden [4096, 4096])'] = () => lt.netBackward(wide, wideParams, new Float32Array(2 ** 16), new Float32Array(2 ** 17));
calls['causalSensitivity(2^15 rows x hidden [4096, 4096])'] = () => lt.causalSensitivity(wide, wideParams, new Float32Array(2 ** 15), Int32Array.of(0));
// Trainer.build checks its arguments before it queues the build: bad ones throw at once.
const cfg = parseRunConfig({ env: { kind: 'cartpole' } });
calls['Trainer.build(no config)'] = () => a.Trainer.build(undefined, undefined, 'cpu');
calls['Trainer.build(capacity 1e12)'] = () => a.Trainer.build({ ...cfg, replay: { ...cfg.replay, capacity: 1e12 } }, undefined, 'cpu');
calls['Trainer.build(hidden width 2^31-1)'] = () => a.Trainer.build({ ...cfg, network: { ...cfg.network, hidden: [2 ** 31 - 1] } }, undefined, 'cpu');
calls['Trainer.build(backend NaN)'] = () => a.Trainer.build(cfg, undefined, Number.NaN);

for (const [call, f] of Object.entries(calls)) {
  try {
    f();
    console.log(JSON.stringify({ call, threw: false }));
  } catch (e) {
    console.log(JSON.stringify({ call, threw: true, name: (e as Error).name, message: (e as Error).message }));
  }
}
console.log('done');
