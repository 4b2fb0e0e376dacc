// Seed groups in the run history (issue 27 item 4): found from the members' group.json markers
// while they train and from the summary file once written; planted links, malformed and
// oversized files are refused without breaking the listing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { GROUP_MARKER_FILE, groupState, type GroupMarker } from '../../common/seed-group.ts';
import { groupMarker } from '../cli/seeds.ts';
import { appendEvent, createRunDir } from './run-dir.ts';
import { RunIndex } from './run-index.ts';
import { acquireRunLock } from './run-lock.ts';
import { readGroupMarker, writeGroupMarker } from './seed-groups.ts';

const GROUP = '20261202-090000-cp-seeds';
const when = new Date(2026, 11, 2, 9, 0, 0);

/** A runs folder with members of GROUP for `seeds` (each with its marker, finished unless `state` says otherwise). */
function groupFolder(seeds: number[], planned = seeds) {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-groups-'));
  const dirs = seeds.map((seed) => {
    const dir = createRunDir(runs, parseRunConfig({ name: `cp-seed${seed}`, seed, env: { kind: 'cartpole' } }), when);
    writeGroupMarker(dir, groupMarker(join(runs, `${GROUP}.json`), seed, planned));
    appendEvent(dir, { time: 't', kind: 'finish', message: 'finished' });
    return dir;
  });
  return { runs, dirs };
}

const summary = (runDirs: string[], seeds: number[]) => ({
  seeds,
  runs: runDirs.map((run_dir, i) => ({ seed: seeds[i], state: 'finished', run_dir })),
  eval_mean_return: { n: runDirs.length, mean: 480.5, std: 3, iqm: 480.5, min: 470, max: 490, mean_ci95: [472.25, 488.75] },
});

async function listing(runs: string) {
  const index = new RunIndex();
  const listed = await index.list(runs);
  return { groupOf: new Map(listed.map((r) => [basename(r.runDir), r.seedGroup])), groups: index.groups(runs) };
}

test('a group that is training is listed from its members\' group.json: the seeds planned, no summary yet, live while a member trains', async () => {
  const { runs, dirs } = groupFolder([3, 4], [3, 4, 5]);
  const lock = acquireRunLock(dirs[1]!);
  try {
    const { groupOf, groups } = await listing(runs);
    assert.deepEqual([...groupOf.values()], [GROUP, GROUP]);
    assert.deepEqual(groups, [{ name: GROUP, seeds: [3, 4, 5], summarized: false, state: 'live' }]);
  } finally {
    lock.release();
  }
  // Its process died between members: two of three there and no summary.
  assert.equal((await listing(runs)).groups[0]!.state, 'incomplete');
});

test('a finished group shows its summary\'s headline figure; a member whose folder is missing (deleted, moved) is simply not among its members', async () => {
  const { runs, dirs } = groupFolder([3, 4, 5]);
  writeFileSync(join(runs, `${GROUP}.json`), JSON.stringify(summary(dirs, [3, 4, 5])));
  rmSync(dirs[1]!, { recursive: true });
  const { groupOf, groups } = await listing(runs);
  assert.deepEqual([...groupOf.values()], [GROUP, GROUP]);
  assert.deepEqual(groups, [{ name: GROUP, seeds: [3, 4, 5], summarized: true, headline: { figure: 'eval_mean_return', n: 3, mean: 480.5, ci95: [472.25, 488.75], interval: 'mean-t' }, state: 'finished' }]);
});

test("a summary written before the t interval shows its IQM bootstrap interval, named as such", async () => {
  const { runs, dirs } = groupFolder([3, 4]);
  const old = summary(dirs, [3, 4]);
  const { mean_ci95: ci, ...stats } = old.eval_mean_return;
  writeFileSync(join(runs, `${GROUP}.json`), JSON.stringify({ ...old, eval_mean_return: { ...stats, iqm_ci95: ci } }));
  assert.deepEqual((await listing(runs)).groups[0]!.headline, { figure: 'eval_mean_return', n: 2, mean: 480.5, ci95: [472.25, 488.75], interval: 'iqm-bootstrap' });
});

test('runs of a summary written before markers existed are grouped by the summary alone, with its seeds', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-groups-'));
  const dirs = [1, 2].map((seed) => createRunDir(runs, parseRunConfig({ name: `cp-seed${seed}`, seed, env: { kind: 'cartpole' } }), when));
  writeFileSync(join(runs, `${GROUP}.json`), JSON.stringify(summary([`/moved/${basename(dirs[0]!)}`, dirs[1]!], [1, 2])));
  const { groupOf, groups } = await listing(runs);
  assert.deepEqual([...groupOf.values()], [GROUP, GROUP]);
  assert.deepEqual(groups.map((g) => [g.seeds, g.state]), [[[1, 2], 'incomplete']], 'no finish event: incomplete');
});

test('a malformed, oversized or foreign group.json leaves its run ungrouped and the rest of the listing intact', async () => {
  const { runs, dirs } = groupFolder([1, 2, 3, 4]);
  const marker = (d: string) => join(d, GROUP_MARKER_FILE);
  writeFileSync(marker(dirs[0]!), '{ "kind": "seed-group", ');
  writeFileSync(marker(dirs[1]!), JSON.stringify({ ...groupMarker(`/r/${GROUP}.json`, 2, [2]), group: '../../etc/passwd-seeds' }));
  writeFileSync(marker(dirs[2]!), JSON.stringify({ ...groupMarker(`/r/${GROUP}.json`, 3, [3]), pad: 'x'.repeat(5000) }));
  for (const d of dirs.slice(0, 3)) assert.equal(readGroupMarker(d), undefined, `${basename(d)}: refused`);
  const { groupOf, groups } = await listing(runs);
  assert.equal(groupOf.size, 4, 'every run is listed');
  assert.deepEqual([...groupOf.entries()].filter(([, g]) => g).map(([n]) => n), [basename(dirs[3]!)]);
  assert.deepEqual(groups.map((g) => g.name), [GROUP]);
});

test('a group.json or a summary file planted as a symbolic link is refused, even when it points at a valid file', async () => {
  const { runs, dirs } = groupFolder([1, 2]);
  const elsewhere = mkdtempSync(join(tmpdir(), 'dqn-elsewhere-'));
  const valid: GroupMarker = groupMarker(`/r/${GROUP}.json`, 1, [1, 2]);
  writeFileSync(join(elsewhere, 'marker.json'), JSON.stringify(valid));
  rmSync(join(dirs[0]!, GROUP_MARKER_FILE));
  symlinkSync(join(elsewhere, 'marker.json'), join(dirs[0]!, GROUP_MARKER_FILE));
  assert.equal(readGroupMarker(dirs[0]!), undefined);
  // A summary naming the first run, but reached through a link.
  const other = '20261202-100000-other-seeds';
  writeFileSync(join(elsewhere, 'summary.json'), JSON.stringify(summary([dirs[0]!], [1])));
  symlinkSync(join(elsewhere, 'summary.json'), join(runs, `${other}.json`));
  const { groupOf, groups } = await listing(runs);
  assert.equal(groupOf.get(basename(dirs[0]!)), undefined, 'neither the linked marker nor the linked summary groups it');
  assert.equal(groupOf.get(basename(dirs[1]!)), GROUP);
  assert.deepEqual(groups.map((g) => [g.name, g.summarized]), [[GROUP, false]]);
});

test('a group\'s state: live before halted before stopped before incomplete; missing members count only before the summary', () => {
  assert.equal(groupState(['finished', 'halted', 'live'], 3, false), 'live');
  assert.equal(groupState(['stopped', 'halted'], 3, true), 'halted');
  assert.equal(groupState(['finished', 'stopped'], 3, true), 'stopped');
  assert.equal(groupState(['finished', 'finished'], 3, false), 'incomplete');
  assert.equal(groupState(['finished', 'finished'], 3, true), 'finished');
  assert.equal(groupState(['finished', 'finished', 'finished'], 3, false), 'finished');
});
