import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FRAME_SERIES, seriesX, SYSTEM_SERIES } from '../../common/protocol.ts';
import { C51_DIST_PREFIX, SCALAR_NAMES } from '../../common/run.ts';
import { scalarGroups } from './scalar-catalog.ts';

const names = [SCALAR_NAMES.loss, SCALAR_NAMES.grad_norm, SCALAR_NAMES.q_mean, SCALAR_NAMES.epsilon, FRAME_SERIES.epochTime, `${C51_DIST_PREFIX}0`, `${C51_DIST_PREFIX}1`, SCALAR_NAMES.td_mse, SYSTEM_SERIES.rssMiB];

test('every logged scalar is listed once, grouped by prefix in the order first seen; C51 atoms are not scalars', () => {
  assert.deepEqual(scalarGroups(names, ''), [
    { prefix: 'losses', names: ['losses/td_loss', 'losses/grad_norm', 'losses/td_mse'] },
    { prefix: 'q', names: ['q/mean'] },
    { prefix: 'charts', names: ['charts/epsilon'] },
    { prefix: 'epoch', names: ['epoch/time_s'] },
    { prefix: 'system', names: ['system/rss_mib'] },
  ]);
});

test('the filter keeps names holding every word typed, in any case', () => {
  assert.deepEqual(scalarGroups(names, 'GRAD'), [{ prefix: 'losses', names: ['losses/grad_norm'] }]);
  assert.deepEqual(scalarGroups(names, 'losses td'), [{ prefix: 'losses', names: ['losses/td_loss', 'losses/td_mse'] }]);
  assert.deepEqual(scalarGroups(names, 'nothing-matches'), []);
});

test('a series is drawn against its own x: epochs, env steps or gradient steps', () => {
  assert.equal(seriesX(FRAME_SERIES.epochTime), 'epoch');
  assert.equal(seriesX(FRAME_SERIES.epochStepsPerSec), 'epoch');
  assert.equal(seriesX(FRAME_SERIES.evalReturn), 'env');
  assert.equal(seriesX(FRAME_SERIES.episodicReturn), 'env');
  assert.equal(seriesX(SCALAR_NAMES.epsilon), 'step');
  assert.equal(seriesX(SYSTEM_SERIES.rssMiB), 'step');
});
