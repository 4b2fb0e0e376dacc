import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandPath, foldsNextLines, runNextLines, seedGroupNextLines, type NextContext } from './next-steps.ts';

const ctx: NextContext = { runsDir: '/repo/runs', serveRunsDir: '/repo/runs', cwd: '/repo' };

test('after a stopped run: its folder, the command that resumes it, and how to open it in the dashboard', () => {
  assert.deepEqual(runNextLines({ state: 'stopped', run_dir: '/repo/runs/20261204-091202-cartpole' }, ctx), [
    'run folder: runs/20261204-091202-cartpole',
    'resume: npm run train -- --resume runs/20261204-091202-cartpole',
    'view: npm run serve, then open the URL it prints with &run=20261204-091202-cartpole added',
  ]);
});

test('a finished run (at its target return or not) and a halted one are offered no resume', () => {
  for (const state of ['finished', 'halted'] as const)
    assert.deepEqual(runNextLines({ state, run_dir: '/repo/runs/r' }, ctx), ['run folder: runs/r', 'view: npm run serve, then open the URL it prints with &run=r added'], state);
});

test('runs written outside the folder serve lists by default name it in the serve command', () => {
  const lines = runNextLines({ state: 'stopped', run_dir: '/tmp/my runs/r1' }, { ...ctx, runsDir: '/tmp/my runs' });
  assert.deepEqual(lines, ["run folder: '/tmp/my runs/r1'", "resume: npm run train -- --resume '/tmp/my runs/r1'", "view: npm run serve -- --runs-dir '/tmp/my runs', then open the URL it prints with &run=r1 added"]);
});

test('a path is shown relative to where npm runs the command when inside it, else absolute, quoted when the shell would split it', () => {
  assert.equal(commandPath('/repo/runs/a', '/repo'), 'runs/a');
  assert.equal(commandPath('/repository/runs/a', '/repo'), '/repository/runs/a', 'a sibling folder with the same prefix is not inside');
  assert.equal(commandPath('/repo', '/repo'), '/repo');
  assert.equal(commandPath("/x/it's", '/repo'), "'/x/it'\\''s'");
});

test('a seed group offers a resume for each stopped seed and opens as its group; walk-forward lists its fold runs', () => {
  const members = [
    { label: 'seed 5', state: 'finished' as const, run_dir: '/repo/runs/s-seed5' },
    { label: 'seed 6', state: 'stopped' as const, run_dir: '/repo/runs/s-seed6' },
  ];
  assert.deepEqual(seedGroupNextLines('20261204-091202-s-seeds', members, ctx), [
    'resume seed 6: npm run train -- --resume runs/s-seed6',
    'view: npm run serve, then open the group 20261204-091202-s-seeds in the run history',
  ]);
  const folds = members.map((m, k) => ({ ...m, label: `fold ${k}`, run_dir: `/repo/runs/wf-fold${k}` }));
  assert.deepEqual(foldsNextLines(folds, ctx), ['resume fold 1: npm run train -- --resume runs/wf-fold1', 'view: npm run serve, then open the runs wf-fold0, wf-fold1 in the run history']);
  assert.deepEqual(foldsNextLines([], ctx), [], 'no fold started: nothing to open');
});
