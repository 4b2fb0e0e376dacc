// The trainer host's side of seed groups (issue 27 item 4): the run history lists the groups, and
// openGroup answers every member's records in one bounded groupData message, from run folders
// inside the runs folder only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseRunConfig } from '../../common/config.ts';
import { HostMessageSchema, type HostMessage } from '../../common/protocol.ts';
import { groupMarker } from '../cli/seeds.ts';
import { TrainerHost, type HostPort } from './host.ts';
import { createRunDir, metricsChunks, MetricsWriter, readRunConfig } from './run-dir.ts';
import { RunIndex } from './run-index.ts';
import { writeGroupMarker } from './seed-groups.ts';
import { until } from '../testing/until.ts';

const GROUP = '20261202-090000-cp-seeds';

/** A runs folder holding GROUP's members for `seeds`, each with `points` scalar records (loss = seed + step / 1000). */
function groupFolder(seeds: number[], points: number) {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-host-group-'));
  const dirs = seeds.map((seed) => {
    const dir = createRunDir(runs, parseRunConfig({ name: `cp-seed${seed}`, seed, env: { kind: 'cartpole' } }), new Date(2026, 11, 2, 9, 0, seed));
    writeGroupMarker(dir, groupMarker(join(runs, `${GROUP}.json`), seed, seeds));
    const w = new MetricsWriter(join(dir, 'metrics.jsonl'));
    for (let step = 1; step <= points; step++) w.add({ type: 'scalars', step, wall_s: step / 100, values: { 'losses/td_loss': seed + step / 1000 } });
    w.add({ type: 'episode', step: 40, value: 10 * seed });
    w.flush();
    return dir;
  });
  return { runs, dirs };
}

/** A host over the real run index and run files of `runsDir`, with one port whose messages are schema-checked. */
function hostOver(runsDir: string, historyMaxPoints: number) {
  const index = new RunIndex();
  const host = new TrainerHost({ startRun: () => assert.fail('no run starts here'), listRuns: (d, f) => index.list(d, f), listGroups: (d) => index.groups(d), readRunConfig, metricsChunks }, { runsDir, historyMaxPoints });
  const sent: HostMessage[] = [];
  let listener: ((data: unknown) => void) | undefined;
  const port: HostPort = { post: (m) => sent.push(HostMessageSchema.parse(JSON.parse(JSON.stringify(m)))), listen: (l) => ((listener = l), () => (listener = undefined)) };
  host.attach(port);
  return { sent, send: (data: unknown) => listener?.(data) };
}

test('the run history message lists the seed groups beside the runs', async () => {
  const { runs } = groupFolder([5, 6], 3);
  const { sent, send } = hostOver(runs, 1000);
  send({ type: 'listRuns' });
  const m = await until(() => sent.find((x) => x.type === 'runs'), 'a runs message');
  assert.ok(m.type === 'runs');
  assert.deepEqual(m.runs.map((r) => r.seedGroup), [GROUP, GROUP]);
  assert.deepEqual(m.groups, [{ name: GROUP, seeds: [5, 6], summarized: false, state: 'incomplete' }]);
});

test("openGroup sends every member's records in seed order, each bounded to its share of the history budget", async () => {
  const { runs, dirs } = groupFolder([7, 3], 500);
  const { sent, send } = hostOver(runs, 600);
  send({ type: 'openGroup', group: GROUP });
  const m = await until(() => sent.find((x) => x.type === 'groupData'), 'groupData');
  assert.ok(m.type === 'groupData');
  assert.deepEqual(m.members.map((x) => [basename(x.runDir), x.config.seed]), [[basename(dirs[1]!), 3], [basename(dirs[0]!), 7]]);
  for (const member of m.members) {
    assert.ok(member.scalars.length <= 300, `${member.scalars.length} scalar points: at most 600 / 2`);
    assert.equal(member.scalars.at(-1)!.values['losses/td_loss'], member.config.seed + 0.5, 'the newest point is kept as it was');
    assert.deepEqual(member.episodes, [{ step: 40, value: 10 * member.config.seed }]);
  }
});

test('openGroup leaves out a member folder planted as a link to a folder outside the runs folder, and refuses an unknown or malformed group', async () => {
  const { runs, dirs } = groupFolder([1, 2], 5);
  // The second member's folder replaced by a link to a copy of it elsewhere: listed (its files read as a run's), never opened.
  const outside = join(mkdtempSync(join(tmpdir(), 'dqn-outside-')), 'copy');
  cpSync(dirs[1]!, outside, { recursive: true });
  rmSync(dirs[1]!, { recursive: true });
  symlinkSync(outside, dirs[1]!);
  const { sent, send } = hostOver(runs, 1000);
  send({ type: 'openGroup', group: GROUP });
  const m = await until(() => sent.find((x) => x.type === 'groupData'), 'groupData');
  assert.ok(m.type === 'groupData');
  assert.deepEqual(m.members.map((x) => x.runDir), [dirs[0]]);
  send({ type: 'openGroup', group: '20261202-090000-none-seeds' });
  const unknown = await until(() => sent.find((x) => x.type === 'error' && x.command === 'openGroup'), 'an error');
  assert.ok(unknown.type === 'error');
  assert.equal(unknown.message, `seed group '20261202-090000-none-seeds' has no member run in the runs folder ${runs}`);
  send({ type: 'openGroup', group: '../etc-seeds' });
  await until(() => sent.some((x) => x.type === 'error' && /^rejected openGroup command: group: a group name is <stamp>-<name>-seeds/.test(x.message)), 'the malformed name rejected');
});
