import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { chooseBackend, cudaHeadsGap } from './backend-choice.ts';

const heads = (h: RunConfigInput['heads'] = {}) => parseRunConfig({ env: { kind: 'cartpole' }, heads: h }).heads;
const gpu = () => ({ cudaAvailable: true, reason: '' });
const noGpu = () => ({ cudaAvailable: false, reason: 'no CUDA device' });

test('the GPU learner trains the plain Q head only: every other head or part is named with its setting', () => {
  assert.equal(cudaHeadsGap(heads()), '');
  assert.equal(cudaHeadsGap(heads({ main: 'c51' })), 'the GPU learner has no C51 head yet (heads.main = c51)');
  assert.equal(cudaHeadsGap(heads({ main: 'iqn' })), 'the GPU learner has no IQN head yet (heads.main = iqn)');
  assert.equal(
    cudaHeadsGap(heads({ main: 'c51', iqn: { auxiliary: true }, ensemble: { heads: 4 }, cql: { alpha: 0.1 }, spectral: { sigma_max: 1 } })),
    'the GPU learner has no C51 head, auxiliary IQN head, ensemble, CQL or spectral normalisation yet (heads.main = c51, heads.iqn.auxiliary = true, heads.ensemble.heads = 4, heads.cql.alpha = 0.1, heads.spectral.sigma_max = 1)',
  );
  assert.equal(cudaHeadsGap(heads({ cql: { share: 0.3 }, spectral: { trunk: false } })), '', 'settings of parts that are off ask for nothing');
});

test('auto trains on the GPU only when the device is usable and the learner has the heads, else on the CPU saying why', () => {
  assert.deepEqual(chooseBackend('auto', heads(), gpu), { backend: 'cuda', reason: '' });
  assert.deepEqual(chooseBackend('auto', heads(), noGpu), { backend: 'cpu', reason: 'no CUDA device' });
  assert.deepEqual(chooseBackend('auto', heads({ main: 'c51' }), gpu), { backend: 'cpu', reason: 'the GPU learner has no C51 head yet (heads.main = c51)' });
  assert.deepEqual(chooseBackend('auto', heads({ ensemble: { heads: 2 } }), noGpu), {
    backend: 'cpu',
    reason: 'the GPU learner has no ensemble yet (heads.ensemble.heads = 2); no CUDA device',
  });
});

test("an explicit cuda backend that cannot train the run refuses with the heads' reason first, then the device's; cpu never probes the device", () => {
  assert.deepEqual(chooseBackend('cuda', heads(), gpu), { backend: 'cuda', reason: '' });
  assert.throws(() => chooseBackend('cuda', heads({ main: 'iqn' }), gpu), {
    message: "backend 'cuda' was asked for, but the GPU learner has no IQN head yet (heads.main = iqn): use backend 'auto' or 'cpu' to train on the CPU",
  });
  assert.throws(() => chooseBackend('cuda', heads({ main: 'c51' }), noGpu), {
    message: "backend 'cuda' was asked for, but the GPU learner has no C51 head yet (heads.main = c51); no CUDA device: use backend 'auto' or 'cpu' to train on the CPU",
  });
  assert.throws(() => chooseBackend('cuda', heads(), noGpu), { message: "backend 'cuda' was asked for, but no CUDA device: use backend 'auto' or 'cpu' to train on the CPU" });
  assert.deepEqual(chooseBackend('cpu', heads({ main: 'c51' }), () => assert.fail('probed the device for a cpu run')), { backend: 'cpu', reason: '' });
});
