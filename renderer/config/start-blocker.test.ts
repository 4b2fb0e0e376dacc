import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBlocker } from './start-blocker.ts';

test('Start says why it is off: an invalid field first (with the field to go to), else no connection or a live run (issue 26 item 11)', () => {
  const none = new Map<string, string>();
  assert.equal(startBlocker(none, 'open', false), undefined, 'nothing in the way');
  const one = new Map([['optim.lr', 'must be in (0, 1] (got -0.001)']]);
  assert.deepEqual(startBlocker(one, 'open', false), { text: 'fix optim.lr to start: must be in (0, 1] (got -0.001)', field: 'optim.lr' });
  const three = new Map([['seed', "'x' is not a number"], ['optim.lr', 'must be in (0, 1] (got 2)'], ['name', 'must not be empty']]);
  assert.deepEqual(startBlocker(three, 'open', false), { text: "fix seed to start: 'x' is not a number (and 2 more invalid fields)", field: 'seed' });
  assert.deepEqual(startBlocker(new Map([['', 'CQL needs ...']]), 'open', false), { text: 'fix the config to start: CQL needs ...' });
  assert.deepEqual(startBlocker(one, 'closed', false), { text: 'not connected to the trainer host (closed)' });
  assert.deepEqual(startBlocker(none, 'open', true), { text: 'a run is live: stop it to start another' });
  assert.deepEqual(startBlocker(none, 'open', 'starting'), { text: 'a run is starting: the trainer host loads its data and builds it' }, 'sent, not yet answered');
});
