import { test } from 'node:test';
import assert from 'node:assert/strict';
import { etaText, replayBadge } from './Header.tsx';

const backends = { compute: { backend: 'cuda' as const, reason: '' }, replay: { backend: 'cuda' as const, reason: '' } };

test('the replay badge says where the training environments step when not on the host, and why not on the GPU when the config asked for it', () => {
  assert.equal(replayBadge(undefined, 'proportional'), 'Replay: – (no run yet)');
  assert.equal(replayBadge(backends, 'proportional'), 'Replay: GPU PER', 'a host that does not report the environments');
  assert.equal(replayBadge({ ...backends, collector: { where: 'host', reason: '' } }, 'uniform'), 'Replay: GPU uniform', 'the default says nothing');
  assert.equal(replayBadge({ ...backends, collector: { where: 'device', reason: '' } }, 'proportional'), 'Replay: GPU PER, envs on GPU');
  assert.equal(
    replayBadge({ ...backends, replay: { backend: 'cpu', reason: 'out of memory' }, collector: { where: 'host', reason: 'the replay buffer is on the CPU (replay.device), and the device collector writes into the GPU replay' } }, 'proportional'),
    'Replay: CPU PER (fallback: out of memory); envs on host (the replay buffer is on the CPU (replay.device), and the device collector writes into the GPU replay)',
  );
});

test("the replay badge says where a trading run's evaluation walks step with its environments on the GPU: there too, or on the host and why", () => {
  const device = (reason: string) => replayBadge({ ...backends, collector: { where: 'device', reason } }, 'proportional');
  assert.equal(device('training episodes and evaluation walks step on the GPU'), 'Replay: GPU PER, envs and eval walks on GPU');
  assert.equal(
    device('training episodes step on the GPU; evaluation walks step on the host: the GPU evaluation walks do not fit: out of memory'),
    'Replay: GPU PER, envs on GPU; eval walks on host (the GPU evaluation walks do not fit: out of memory)',
  );
});

test("with a target return set, the ETA is an upper bound: 'ETA ≤', and its title says the run stops earlier at the target", () => {
  assert.deepEqual(etaText(20.4, 475), { text: 'ETA ≤ 20 s', title: 'an upper bound: the run stops earlier once an evaluation reaches the target return (475)' });
  assert.deepEqual(etaText(185, -12.5), { text: 'ETA ≤ 3 min 5 s', title: 'an upper bound: the run stops earlier once an evaluation reaches the target return (-12.5)' }, 'a trading target may be negative');
  assert.deepEqual(etaText(20.4, null), { text: 'ETA 20 s' }, 'no target (null): every epoch runs, the ETA is the estimate');
  assert.deepEqual(etaText(20.4, undefined), { text: 'ETA 20 s' }, 'no run config yet');
  assert.deepEqual(etaText(undefined, 475), { text: 'ETA –' }, 'no live run: nothing to bound');
});
