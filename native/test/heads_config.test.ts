// The `heads` section reaches the native trainer (native/src/addon/run_config.cpp) checked again
// with the schema's ranges: a config that bypassed parseRunConfig is refused by field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig, type RunConfig } from '../../common/config.ts';
import { createTrainer } from '../trainer.ts';

const base = parseRunConfig({ env: { kind: 'cartpole', num_envs: 2 }, network: { hidden: [8] }, replay: { capacity: 256 }, optim: { batch_size: 8 } });
/** `base` with one heads subsection replaced, as a caller that skipped the schema would send it. */
const withHeads = (patch: Record<string, unknown>) => ({ ...base, heads: { ...base.heads, ...patch } }) as RunConfig;

test('the native trainer refuses a part the CPU learner does not build yet, naming the field to change', () => {
  const refused: Array<[Record<string, unknown>, RegExp]> = [
    [{ main: 'c51' }, /^heads\.main = c51: the C51 head is not built on the CPU yet; set heads\.main to 'q'$/],
    [{ ensemble: { ...base.heads.ensemble, heads: 4 } }, /^heads\.ensemble\.heads = 4: the ensemble is not built on the CPU yet; set it to 0$/],
    [{ cql: { alpha: 0.1, share: 0.1 } }, /^heads\.cql\.alpha: CQL is not built on the CPU yet; set it to 0$/],
    [{ spectral: { sigma_max: 1, trunk: true, heads: false } }, /^heads\.spectral\.sigma_max: spectral normalisation is not built on the CPU yet/],
  ];
  for (const [patch, message] of refused) assert.throws(() => createTrainer({ config: withHeads(patch), backend: 'cpu' }), { name: 'RangeError', message });
});

test('the CPU trainer builds an IQN main head and an auxiliary IQN head beside the Q head, and refuses CQL on an IQN main head', () => {
  for (const patch of [{ main: 'iqn' }, { iqn: { ...base.heads.iqn, auxiliary: true } }]) createTrainer({ config: withHeads(patch), backend: 'cpu' }).close();
  assert.throws(() => createTrainer({ config: withHeads({ main: 'iqn', cql: { alpha: 0.1, share: 0.1 } }), backend: 'cpu' }),
    { name: 'RangeError', message: "CQL needs a main head with deterministic Q-values: set heads.main to 'q' or 'c51', or heads.cql.alpha to 0" });
});

test('the native trainer refuses a heads field out of range, naming it', () => {
  const refused = (patch: Record<string, unknown>, error: { name: string; message: string | RegExp }) =>
    assert.throws(() => createTrainer({ config: withHeads(patch), backend: 'cpu' }), error);
  refused({ main: 'qr' }, { name: 'RangeError', message: "config.heads.main must be one of 'q', 'c51', 'iqn', got 'qr'" });
  refused({ c51: { ...base.heads.c51, atoms: 102 } }, { name: 'RangeError', message: 'config.heads.c51.atoms must be in [2, 101], got 102' });
  refused({ c51: { ...base.heads.c51, v_min: 10 } }, { name: 'RangeError', message: 'config.heads.c51.v_min must be below config.heads.c51.v_max, got 10 >= 10' });
  refused({ iqn: { ...base.heads.iqn, share: 1 } }, { name: 'RangeError', message: 'config.heads.iqn.share must be below 1 (the main head keeps the rest of the budget), got 1' });
  refused({ iqn: { ...base.heads.iqn, kappa: 0 } }, { name: 'RangeError', message: 'config.heads.iqn.kappa must be in [2.2250738585072014e-308, 1e+06], got 0' });
  refused({ ensemble: { ...base.heads.ensemble, heads: 33 } }, { name: 'RangeError', message: 'config.heads.ensemble.heads must be in [0, 32], got 33' });
  refused({ cql: { alpha: -1, share: 0.1 } }, { name: 'RangeError', message: 'config.heads.cql.alpha must be in [0, 1e+06], got -1' });
  refused({ spectral: { sigma_max: 1, trunk: 'yes', heads: false } }, { name: 'TypeError', message: 'config.heads.spectral.trunk must be a boolean' });
  const { heads: _, ...noHeads } = base;
  assert.throws(() => createTrainer({ config: noHeads as RunConfig, backend: 'cpu' }), { name: 'TypeError', message: 'config.heads is required' });
});
