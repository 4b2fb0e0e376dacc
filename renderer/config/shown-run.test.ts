import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../../common/config.ts';
import { shownRunConfig } from './shown-run.ts';

const live = parseRunConfig({ env: { kind: 'cartpole' }, schedule: { steps_per_epoch: 500 } });
const past = parseRunConfig({ env: { kind: 'cartpole' }, network: { hidden: [32, 32] } });

test('the panel shows the opened past run, else the live run while it runs, else the draft', () => {
  const p = shownRunConfig({ kind: 'history', runDir: '/runs/20261201-101010-old', config: past }, '/runs/20261201-111111-new', live);
  assert.equal(p?.config, past, 'a past run opened from the history wins over the live run');
  assert.equal(p?.reason, 'Config of the past run 20261201-101010-old, read-only.');
  assert.equal(p?.key, 'history:/runs/20261201-101010-old');
  const l = shownRunConfig({ kind: 'live' }, '/runs/20261201-111111-new', live);
  assert.equal(l?.config.schedule.steps_per_epoch, 500);
  assert.equal(l?.reason, 'Config of the live run 20261201-111111-new, read-only while it runs.');
  assert.equal(shownRunConfig({ kind: 'live' }, undefined, live), undefined, 'no live run: the draft');
});
