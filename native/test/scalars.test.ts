import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAddon } from '../addon.ts';
import { readScalars, nanTensors } from '../scalars.ts';

test('the scalar layout names every field at a distinct, aligned offset inside the block', () => {
  const { scalarLayout } = loadAddon();
  const offsets = Object.values(scalarLayout.fields).map((f) => f.offset);
  assert.equal(new Set(offsets).size, offsets.length);
  for (const [name, f] of Object.entries(scalarLayout.fields)) {
    const width = f.type === 'i32' || f.type === 'u32' ? 4 : 8;
    assert.equal(f.offset % width, 0, `${name} is misaligned`);
    assert.ok(f.offset + width * f.length <= scalarLayout.size, `${name} runs past the block`);
  }
  for (const name of ['step', 'loss', 'td_mse', 'grad_norm', 'q_mean', 'causal_sensitivity', 'nan_flags', 'per_total', 'beta', 'epsilon'])
    assert.ok(name in scalarLayout.fields, `missing ${name}`);
});

test('readScalars decodes values written at the exported offsets', () => {
  const { scalarLayout } = loadAddon();
  const block = new ArrayBuffer(scalarLayout.size);
  const view = new DataView(block);
  view.setBigInt64(scalarLayout.fields.step!.offset, 12345n, true);
  view.setFloat64(scalarLayout.fields.loss!.offset, 0.25, true);
  view.setUint32(scalarLayout.fields.nan_flags!.offset, 0b101, true);
  view.setInt32(scalarLayout.fields.causal_features!.offset, 2, true);
  view.setFloat64(scalarLayout.fields.causal_per_feature!.offset + 8, 1.5, true);
  view.setInt32(scalarLayout.fields.c51_atoms!.offset, 3, true);
  for (const [j, p] of [0.25, 0.5, 0.25, 0.75].entries()) view.setFloat64(scalarLayout.fields.c51_greedy_dist!.offset + 8 * j, p, true);
  const s = readScalars(block, scalarLayout);
  assert.equal(s.step, 12345);
  assert.equal(s.loss, 0.25);
  assert.deepEqual(s.causal_per_feature, [0, 1.5]);
  assert.deepEqual(s.c51_greedy_dist, [0.25, 0.5, 0.25], 'the first c51_atoms entries only');
  assert.deepEqual(nanTensors(s.nan_flags!, scalarLayout), ['loss', 'q_target']);
  assert.throws(() => readScalars(new ArrayBuffer(8), scalarLayout), /must be \d+ bytes, got 8/);
});
