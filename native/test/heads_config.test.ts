// The `heads` section reaches the native trainer (native/src/addon/run_config.cpp) checked again
// with the schema's ranges: a config that bypassed parseRunConfig is refused by field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig, type RunConfig } from '../../common/config.ts';
import { createTrainer } from '../trainer.ts';

const base = parseRunConfig({ env: { kind: 'cartpole', num_envs: 2 }, network: { hidden: [8] }, replay: { capacity: 256 }, optim: { batch_size: 8 } });
/** `base` with one heads subsection replaced, as a caller that skipped the schema would send it. */
const withHeads = (patch: Record<string, unknown>) => ({ ...base, heads: { ...base.heads, ...patch } }) as RunConfig;

test('a heads section with every part on is accepted by the native trainer', () => {
  const full = parseRunConfig({ ...base, heads: { main: 'c51', iqn: { auxiliary: true }, ensemble: { heads: 2 }, cql: { alpha: 0.1 }, spectral: { sigma_max: 1, heads: true } } });
  const t = createTrainer({ config: full, backend: 'cpu' });
  assert.equal(t.info.nActions, 2);
  t.close();
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

test('the CUDA backend refuses any heads but the plain Q head, on any machine, naming the settings', () => {
  const heads = { main: 'c51', cql: { alpha: 0.1 }, spectral: { sigma_max: 2 } } as const;
  assert.throws(() => createTrainer({ config: parseRunConfig({ ...base, heads }), backend: 'cuda' }), {
    name: 'RangeError',
    message: "backend 'cuda' trains only the plain Q head, not these heads (heads.main = c51, heads.cql.alpha = 0.1, heads.spectral.sigma_max = 2): use backend 'cpu' or 'auto'",
  });
});
