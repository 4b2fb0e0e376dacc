import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadFromEnv, processCpuSeconds, startCpuLoad } from './cpu-load.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the CPU load keeps its workers busy until stopped, then none is left', { timeout: 120_000 }, async () => {
  const load = startCpuLoad(2);
  try {
    assert.equal(load.pids.length, 2);
    const own0 = processCpuSeconds(process.pid);
    // Wait until each worker has burnt half a CPU second: a state, not a time.
    while (!load.cpuSeconds().every((s) => s >= 0.5)) {
      assert.ok(load.pids.every(alive), 'the workers stay up');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(processCpuSeconds(process.pid) - own0 < 0.5, 'the work is done by the workers, not by this process');
  } finally {
    await load.stop();
  }
  assert.ok(load.pids.every((pid) => !alive(pid)), 'no worker survives stop()');
  assert.ok(load.cpuSeconds().every((s) => Number.isNaN(s)));
});

test('a worker exits by itself when its lifetime ends', { timeout: 60_000 }, async () => {
  const load = startCpuLoad(1, 1);
  while (alive(load.pids[0]!) && !Number.isNaN(load.cpuSeconds()[0]!)) await new Promise((r) => setTimeout(r, 50));
  await load.stop();
});

test('DQN_E2E_CPU_LOAD is a worker count', () => {
  // Its own environments, so that the test holds whatever the ambient DQN_E2E_CPU_LOAD is.
  assert.equal(loadFromEnv({}), 0);
  assert.equal(loadFromEnv({ DQN_E2E_CPU_LOAD: '0' }), 0);
  assert.equal(loadFromEnv({ DQN_E2E_CPU_LOAD: '2' }), 2);
  assert.throws(() => loadFromEnv({ DQN_E2E_CPU_LOAD: 'lots' }), /DQN_E2E_CPU_LOAD must be a number of busy processes/);
  assert.throws(() => startCpuLoad(0), /workers must be a positive integer/);
});
