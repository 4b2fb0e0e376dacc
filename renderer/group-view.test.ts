import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../common/config.ts';
import type { HostMessage } from '../common/protocol.ts';
import { systemNote } from './components/SystemPanel.tsx';
import { groupBandSeries } from './group-view.ts';
import { RUN_COLORS, SERIES_COLORS } from './lib/palette.ts';
import { createDashboard } from './store.ts';

const LOSS = 'losses/td_loss';
const member = (seed: number, losses: [number, number][]) => ({
  runDir: `/runs/g-seed${seed}`,
  config: parseRunConfig({ name: `g-seed${seed}`, seed, env: { kind: 'cartpole' } }),
  scalars: losses.map(([step, v]) => ({ step, wall_s: step / 10, values: { [LOSS]: v } })),
  episodes: [],
  epochs: [],
});
const groupData: HostMessage = { type: 'groupData', group: '20261202-090000-g-seeds', members: [member(1, [[10, 1], [20, 3]]), member(2, [[10, 5], [21, 7]])] };
const values = (d: ReturnType<typeof createDashboard>, name: string) => {
  const s = (name.includes('#group-') ? d.group()!.bandBook : d.shown()).get(name)!;
  return [...s.points()];
};

test('an opened group is drawn as its members\' mean per aligned step, with both bands kept and the min-max band chosen first', () => {
  const d = createDashboard();
  d.apply(groupData);
  const view = d.store.getState().view;
  assert.ok(view.kind === 'group');
  assert.deepEqual([view.group, view.band, view.shownMembers], ['20261202-090000-g-seeds', 'minmax', []]);
  // Steps 10, 20, 21: at 20 the second member carries its 5; at 21 the first has ended (its last step is 20).
  assert.deepEqual(values(d, LOSS), [[10, 3], [20, 4], [21, 7]]);
  assert.deepEqual(values(d, groupBandSeries(LOSS, 'minmax', 'lo')), [[10, 1], [20, 3], [21, 7]]);
  assert.deepEqual(values(d, groupBandSeries(LOSS, 'minmax', 'hi')), [[10, 5], [20, 5], [21, 7]]);
  // Two members at 10: mean 3, s = 2*sqrt(2), t(0.975, 1) = 12.7062: half-width 12.7062 * 2.
  assert.deepEqual(values(d, groupBandSeries(LOSS, 'ci95', 'lo')).map(([x]) => x), [10, 20], 'no interval where one member is left');
  assert.ok(Math.abs(values(d, groupBandSeries(LOSS, 'ci95', 'hi'))[0]![1] - (3 + 12.7062 * 2)) < 1e-9);
  assert.deepEqual(d.group()!.bands([{ name: LOSS, label: 'TD loss', color: '#f4b400' }], 'ci95'), [{ lo: groupBandSeries(LOSS, 'ci95', 'lo'), hi: groupBandSeries(LOSS, 'ci95', 'hi'), color: '#f4b400', label: 'TD loss: 95% t-interval of the mean', source: d.group()!.bandBook }]);
  assert.deepEqual([...d.shown().series.keys()], [LOSS], 'the shown book holds the means only: no chart lists a band edge as a series');
  assert.match(systemNote(d.store.getState()) ?? '', /^No system readings for a seed group/);
});

test('members are drawn over the group on demand, the band is switched, and going back to live drops the group', () => {
  const d = createDashboard();
  d.apply(groupData);
  assert.deepEqual(d.groupOverlays(), []);
  d.toggleGroupMember('/runs/g-seed2');
  assert.deepEqual(d.groupOverlays().map((o) => [o.name, [...o.book.get(LOSS)!.points()]]), [['seed 2', [[10, 5], [21, 7]]]]);
  d.toggleGroupMember('/runs/g-seed2');
  assert.deepEqual(d.groupOverlays(), []);
  d.setGroupBand('ci95');
  const view = d.store.getState().view;
  assert.equal(view.kind === 'group' && view.band, 'ci95');
  d.showLive();
  assert.equal(d.group(), undefined);
  assert.equal(d.shown(), d.live);
  assert.deepEqual(d.groupOverlays(), []);
});

test("a group's members get run colours of their own (never a series colour); a run ticked as an overlay stays drawn over a group's charts, the live one too", () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'idle', runDir: '/runs/last', config: member(9, []).config });
  d.addOverlay('/runs/last');
  d.apply({ type: 'runData', ...member(9, [[5, 1]]), runDir: '/runs/last' });
  assert.deepEqual(d.overlays().map((o) => o.runDir), [], 'live: the last run is shown as itself');
  d.apply(groupData);
  const overlayColor = d.overlays()[0]!.color;
  assert.equal(overlayColor, RUN_COLORS[0]);
  assert.deepEqual(d.group()!.members.map((m) => m.color), [RUN_COLORS[1], RUN_COLORS[2]], 'the members take the colours after the overlaid run\'s');
  assert.ok(d.group()!.members.every((m) => !(Object.values(SERIES_COLORS) as string[]).includes(m.color)));
  assert.deepEqual(d.overlays().map((o) => o.runDir), ['/runs/last'], "a group's charts show no run as itself: the ticked run is drawn over them");
});

test('a run that starts while a seed group is open takes the charts, as from an opened past run (issue 26 item 8)', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'idle', runDir: '/runs/old', config: member(1, []).config });
  d.apply(groupData);
  assert.equal(d.store.getState().view.kind, 'group');
  d.apply({ type: 'state', state: 'running', runDir: '/runs/new', config: member(1, []).config });
  assert.equal(d.store.getState().view.kind, 'live');
  assert.equal(d.group(), undefined);
  assert.equal(d.shown(), d.live);
});

test('an overlaid run never takes the colour of a member of the open group, whichever came first, and closing the group frees its colours', () => {
  const d = createDashboard();
  const past = (runDir: string): HostMessage => ({ type: 'runData', ...member(9, [[5, 1]]), runDir });
  d.apply(groupData);
  d.addOverlay('/runs/x');
  d.apply(past('/runs/x'));
  const colors = () => [...d.group()!.members.map((m) => m.color), ...d.overlays().map((o) => o.color)];
  assert.equal(new Set(colors()).size, 3, `members and the overlay in three colours: ${colors().join(' ')}`);
  assert.ok(colors().every((c) => (RUN_COLORS as readonly string[]).includes(c)));
  d.toggleGroupMember('/runs/g-seed1');
  assert.notEqual(d.groupOverlays()[0]!.color, d.overlays()[0]!.color);
  // Another group opened: the old members' colours are free again, the overlay keeps its own.
  d.showLive();
  d.apply(groupData);
  assert.deepEqual([...d.group()!.members.map((m) => m.color), d.overlays()[0]!.color], [RUN_COLORS[0], RUN_COLORS[1], RUN_COLORS[2]]);
});
