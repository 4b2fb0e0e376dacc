import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectorBadge } from './Header.tsx';

const backends = { compute: { backend: 'cuda' as const, reason: '' }, replay: { backend: 'cuda' as const, reason: '' } };

test('the environments badge says when the training environments step on the GPU, and why not when the config asked for it', () => {
  assert.equal(collectorBadge(undefined), undefined, 'no run yet');
  assert.equal(collectorBadge(backends), undefined, 'a host that does not report it');
  assert.equal(collectorBadge({ ...backends, collector: { where: 'device', reason: '' } }), 'Envs: GPU');
  assert.equal(collectorBadge({ ...backends, collector: { where: 'host', reason: '' } }), undefined, 'the default needs no badge');
  assert.equal(
    collectorBadge({ ...backends, collector: { where: 'host', reason: "env 'trading' has no device kernel yet (CartPole has one)" } }),
    "Envs: host (env 'trading' has no device kernel yet (CartPole has one))",
  );
});
