import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Preset, RunSummary } from '../../common/protocol.ts';
import { createDashboard } from '../store.ts';
import { firstVisitPreset } from './first-visit.ts';

const preset = (name: string, source: Preset['source']): Preset => ({ name, source, config: { name, env: { kind: 'cartpole' } } });
const presets = [preset('cartpole', 'user'), preset('cartpole-c51', 'bundled'), preset('cartpole', 'bundled'), preset('trading-6e', 'bundled')];
const past: RunSummary = { runDir: '/runs/a', name: 'a', createdMs: 0, env: 'cartpole', epochs: 1, lastStep: 1 };

test('a first visit (no draft kept, no run yet) starts from the bundled cartpole preset, not the built-in defaults', () => {
  const fresh = { draftKept: false, runs: [] };
  assert.deepEqual(firstVisitPreset({ ...fresh, presets }), presets[2], "the bundled one, not a user's preset of that name");
});

test('a visit with something of the user\'s keeps the editor as it opened: a kept draft, a run history; and nothing is chosen before the presets and the runs are known', () => {
  assert.equal(firstVisitPreset({ draftKept: true, runs: [], presets }), undefined, 'a draft kept from an earlier visit');
  assert.equal(firstVisitPreset({ draftKept: false, runs: [past], presets }), undefined, 'a run history');
  assert.equal(firstVisitPreset({ draftKept: false, runs: undefined, presets }), undefined, 'the runs not listed yet');
  assert.equal(firstVisitPreset({ draftKept: false, runs: [], presets: [] }), undefined, 'the presets not listed yet');
  assert.equal(firstVisitPreset({ draftKept: false, runs: [], presets: [preset('cartpole', 'user'), preset('trading-6e', 'bundled')] }), undefined, 'no bundled cartpole preset');
});

test('the store says when the run history is known: an empty list before the first listing is not an empty history', () => {
  const d = createDashboard();
  assert.equal(d.store.getState().runsListed, false);
  d.apply({ type: 'runs', runs: [] });
  assert.equal(d.store.getState().runsListed, true);
});
