// The trainer host's side of the Sweep view (issue 25 item 3): listSweeps lists the runs folder's
// sweeps with the best trial so far, openSweep answers one sweep's state; both read sweep.json
// as hostile input (a name the schema checks, a folder inside the runs folder and not a link, a
// regular file, parsed with the schema, errors that never quote the file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostMessageSchema, type HostMessage } from '../../common/protocol.ts';
import { rankTrials, type SweepView } from '../../common/sweep-state.ts';
import { TrainerHost, type HostPort } from './host.ts';
import { metricsChunks, readRunConfig } from './run-dir.ts';
import { sweepDir, writeSweepFiles } from './sweep-dir.ts';
import { until } from '../testing/until.ts';

const stats = (mean: number) => ({ n: 2, mean, std: 0.1, mean_ci95: [mean - 0.9, mean + 0.9] as [number, number] });

/** A sweep state of three trials: 1 and 2 finished, 3 pending. */
function sweepView(name: string, updated: string): SweepView {
  const trials: SweepView['trials'] = [
    { index: 1, params: { 'optim.lr': 0.001 }, status: 'finished', group: `20261202-090000-${name}-t001-seeds`, runs: [{ seed: 1, run: `20261202-090001-${name}-t001-seed1`, state: 'finished' }, { seed: 2, run: `20261202-090002-${name}-t001-seed2`, state: 'finished' }], validation: stats(-0.05) },
    { index: 2, params: { 'optim.lr': 0.0001 }, status: 'finished', group: `20261202-090000-${name}-t002-seeds`, runs: [{ seed: 1, run: `20261202-090003-${name}-t002-seed1`, state: 'finished' }, { seed: 2, run: `20261202-090004-${name}-t002-seed2`, state: 'finished' }], validation: stats(0.02) },
    { index: 3, params: { 'optim.lr': 0.00001 }, status: 'pending', group: `20261202-090000-${name}-t003-seeds`, runs: [] },
  ];
  return { kind: 'sweep', version: 1, name, state: 'stopped', method: 'grid', metric: 'return', goal: 'max', seeds: [1, 2], param_paths: ['optim.lr'], trials, ranking: rankTrials(trials, 'max'), updated };
}

/** A host over `runsDir` with one port whose messages are schema-checked. */
function hostOver(runsDir: string) {
  const host = new TrainerHost({ startRun: () => assert.fail('no run starts here'), listRuns: async () => [], readRunConfig, metricsChunks }, { runsDir });
  const sent: HostMessage[] = [];
  let listener: ((data: unknown) => void) | undefined;
  const port: HostPort = { post: (m) => sent.push(HostMessageSchema.parse(JSON.parse(JSON.stringify(m)))), listen: (l) => ((listener = l), () => (listener = undefined)) };
  host.attach(port);
  return { sent, send: (data: unknown) => listener?.(data) };
}

/** A runs folder with sweeps `a` (older) and `b`, and entries that are not sweeps. */
function runsWithSweeps() {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-host-sweep-'));
  for (const [name, updated] of [['a', '2026-12-02T09:00:00.000Z'], ['b', '2026-12-02T10:00:00.000Z']] as const) {
    mkdirSync(sweepDir(runs, name));
    writeSweepFiles(sweepDir(runs, name), sweepView(name, updated));
  }
  mkdirSync(join(runs, 'broken-sweep'));
  writeFileSync(join(runs, 'broken-sweep', 'sweep.json'), '{"kind": "sweep", "secret": "do not quote me"');
  mkdirSync(join(runs, 'empty-sweep'));
  writeFileSync(join(runs, 'notes-sweep'), 'a file, not a folder');
  return runs;
}

test('listSweeps lists the sweeps of the runs folder, newest first, with the best trial so far; folders that are not sweeps are left out', async () => {
  const runs = runsWithSweeps();
  const { sent, send } = hostOver(runs);
  send({ type: 'listSweeps' });
  const m = await until(() => sent.find((x) => x.type === 'sweeps'), 'a sweeps message');
  assert.ok(m.type === 'sweeps');
  assert.deepEqual(m.sweeps, [
    { name: 'b', state: 'stopped', metric: 'return', trials: 3, done: 2, best: { trial: 2, validation: stats(0.02) }, updated: '2026-12-02T10:00:00.000Z' },
    { name: 'a', state: 'stopped', metric: 'return', trials: 3, done: 2, best: { trial: 2, validation: stats(0.02) }, updated: '2026-12-02T09:00:00.000Z' },
  ]);
});

test("openSweep answers the sweep's trials, ranking and figures as its state file holds them", async () => {
  const runs = runsWithSweeps();
  const { sent, send } = hostOver(runs);
  send({ type: 'openSweep', name: 'a' });
  const m = await until(() => sent.find((x) => x.type === 'sweepData'), 'sweepData');
  assert.ok(m.type === 'sweepData');
  assert.deepEqual(m.sweep, sweepView('a', '2026-12-02T09:00:00.000Z'));
});

test('openSweep refuses a malformed name, a sweep folder outside the runs folder or planted as a link, a linked or malformed state file, never quoting it', async () => {
  const runs = runsWithSweeps();
  const outside = mkdtempSync(join(tmpdir(), 'dqn-outside-'));
  mkdirSync(sweepDir(outside, 'x'));
  writeSweepFiles(sweepDir(outside, 'x'), sweepView('x', '2026-12-02T09:00:00.000Z'));
  symlinkSync(sweepDir(outside, 'x'), sweepDir(runs, 'x'));
  mkdirSync(sweepDir(runs, 'y'));
  symlinkSync(join(sweepDir(outside, 'x'), 'sweep.json'), join(sweepDir(runs, 'y'), 'sweep.json'));
  const { sent, send } = hostOver(runs);
  const errors = () => sent.filter((x): x is Extract<HostMessage, { type: 'error' }> => x.type === 'error');
  const answer = async (name: string) => {
    const n = errors().length;
    send({ type: 'openSweep', name });
    return (await until(() => errors()[n], `the error for '${name}'`)).message;
  };
  assert.match(await answer('../etc'), /^rejected openSweep command: name: use letters, digits/);
  assert.match(await answer('x'.repeat(41)), /^rejected openSweep command: name: Too big/);
  assert.equal(await answer('x'), `run 'x-sweep' is not inside the runs folder ${runs}`);
  assert.match(await answer('y'), /sweep\.json is a symbolic link: run files are read and written only as regular files, never through links$/);
  const broken = await answer('broken');
  assert.equal(broken, `${join(runs, 'broken-sweep', 'sweep.json')} is not a sweep state file: remove it (or the folder) to start the sweep anew`);
  assert.ok(!broken.includes('quote me'));
  assert.equal(await answer('empty'), `sweep 'empty' has no sweep.json yet in the runs folder ${runs}`);
  assert.equal(await answer('none'), `run 'none-sweep' does not exist in the runs folder ${runs}`);
  send({ type: 'listSweeps' });
  const listed = await until(() => sent.find((x) => x.type === 'sweeps'), 'a sweeps message');
  assert.ok(listed.type === 'sweeps');
  assert.deepEqual(listed.sweeps.map((s) => s.name), ['b', 'a'], 'the linked folder and file are not listed');
});
