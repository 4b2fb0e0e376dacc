// The addon never aborts the process: every binding called with hostile arguments throws a
// TypeError or RangeError that says what was expected (issue 15, item 3). The calls run in a
// child process (native/test/helpers/hostile-calls.ts), so an abort fails this test instead of
// killing the test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./helpers/hostile-calls.ts', import.meta.url));

test('every binding called with hostile arguments throws a TypeError or RangeError and the process lives on', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `the child died (signal ${r.signal}): ${r.stderr.slice(-2000)}`);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.at(-1), 'done', 'every call returned');
  const results = lines.slice(0, -1).map((l) => JSON.parse(l) as { call: string; threw: boolean; name?: string; message?: string });
  assert.ok(results.length >= 20, `${results.length} calls`);
  for (const x of results) {
    assert.ok(x.threw, `${x.call} was accepted`);
    assert.ok(x.name === 'TypeError' || x.name === 'RangeError', `${x.call} threw ${x.name}: ${x.message}`);
    assert.ok(x.message && x.message.length > 10, `${x.call}: '${x.message}'`);
  }
  const byCall = new Map(results.map((x) => [x.call, x.message]));
  assert.match(byCall.get('ReplayBuffer.sample(2147483647)')!, /batchSize must be in \[1, 1048576\], got 2147483647/);
  assert.match(byCall.get('matmul(2^20 x 2^20)')!, /C \[m x n\] would need 4096\.00 GiB, more than the 1 GiB one call may return/);
  assert.match(byCall.get('quantileFractions(2^20 rows x 2^20)')!, /the fractions \[rows x count\] would need 4096\.00 GiB/);
  assert.match(byCall.get('spectralNormalize(2^10 x 2^12, 2000 steps)')!, /steps x in x out must be at most 2\^32/);
  // A getter that shrinks or detaches an array runs before the checks, which then see it.
  assert.match(byCall.get('insertBatch(the rewards getter shrinks states to 0 bytes)')!, /^states must be a Float32Array of length 8, got length 0$/);
  assert.match(byCall.get('adamUpdate(the w getter shrinks g to 0 bytes)')!, /^w must be a Float32Array of length 0, got length 1024$/);
  assert.match(byCall.get('Learner.step(the weights getter detaches states)')!, /^states must be a Float32Array of length 8, got length 0$/);
  assert.match(byCall.get('netForward(the act.step getter shrinks states to 0 bytes)')!, /^states must hold a positive multiple of stateDim = 4 floats$/);
  // (4096 + 4096 + 2 + 2 x 4096 + 2 x (1 + 2)) floats a row x 2^16 rows x 4 bytes = 4.00 GiB.
  assert.match(byCall.get('netForward(2^16 rows x hidden [4096, 4096])')!, /^the activations of 65536 rows would need 4\.00 GiB, more than the 1 GiB one call may use$/);
  assert.match(byCall.get('causalSensitivity(2^15 rows x hidden [4096, 4096])')!, /^the activations of 32768 rows would need 4\.00 GiB, more than the 1 GiB one call may use$/);
});
