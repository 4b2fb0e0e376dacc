// The bundled presets (resources/presets/): every one is a valid config named after its file,
// and the heads presets ask for the heads they are named for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../../common/config.ts';
import { enabledShares, isPlainQ } from '../../common/heads.ts';
import { listPresets, loadPreset } from './presets.ts';

test('every bundled preset is a valid config whose name is its file name', () => {
  const names = listPresets();
  assert.deepEqual(names, ['cartpole', 'cartpole-c51', 'trading-6e', 'trading-6e-full', 'trading-spy']);
  for (const name of names) assert.equal(parseRunConfig(loadPreset(name)).name, name);
});

test('cartpole-c51 is the cartpole preset with a C51 head on a support that holds its returns', () => {
  const plain = parseRunConfig(loadPreset('cartpole'));
  const c51 = parseRunConfig(loadPreset('cartpole-c51'));
  assert.deepEqual({ ...c51, name: 'cartpole', heads: plain.heads }, plain, 'only the name and the heads differ');
  assert.deepEqual(c51.heads.c51, { atoms: 51, v_min: 0, v_max: 100 });
  assert.equal(c51.heads.main, 'c51');
  assert.equal(isPlainQ({ ...c51.heads, main: 'q' }), true, 'nothing else is on');
  // CartPole pays +1 per step: every discounted return lies in [0, 1 / (1 - gamma)].
  assert.ok(Math.abs(c51.heads.c51.v_max - 1 / (1 - c51.optim.gamma)) < 1e-9);
});

test("trading-6e-full is trading-6e with the original system's whole stack: C51, auxiliary IQN, ensemble, CQL and spectral normalisation", () => {
  const plain = parseRunConfig(loadPreset('trading-6e'));
  const full = parseRunConfig(loadPreset('trading-6e-full'));
  assert.deepEqual({ ...full, name: 'trading-6e', heads: plain.heads }, plain, 'only the name and the heads differ');
  const h = full.heads;
  assert.equal(h.main, 'c51');
  assert.deepEqual([h.ensemble.heads, h.cql.alpha, h.spectral.sigma_max, h.spectral.trunk, h.spectral.heads], [4, 0.1, 1, true, false]);
  assert.deepEqual(enabledShares(h), [{ part: 'iqn', share: 0.2 }, { part: 'ensemble', share: 0.1 }, { part: 'cql', share: 0.1 }], 'the main head keeps 0.6 of the budget');
});
