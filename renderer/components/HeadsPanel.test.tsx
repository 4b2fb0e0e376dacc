import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { FrameBuilder } from '../../common/frame-builder.ts';
import { C51_DIST_PREFIX, SCALAR_NAMES } from '../../common/run.ts';
import { createCsvRequester } from '../lib/csv-request.ts';
import { RedrawScheduler } from '../lib/redraw.ts';
import { createDashboard } from '../store.ts';
import { latestDistribution } from './C51Chart.tsx';
import { HeadsPanelView, shownHeads } from './HeadsPanel.tsx';

const config = (heads: RunConfigInput['heads']) => parseRunConfig({ env: { kind: 'cartpole' }, heads });
const scheduler = new RedrawScheduler(() => 0);
const csv = createCsvRequester({ send: () => undefined, subscribe: () => () => undefined } as never);

/** A dashboard live on a run with `heads` that streamed every heads series (values by name). */
function liveRun(heads: RunConfigInput['heads'], values: Record<string, number>) {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: 'runs/h', config: config(heads) });
  const b = new FrameBuilder('runs/h');
  b.addScalars([{ step: 100, wall_s: 1, values }]);
  const frame = b.take();
  if (frame) d.apply(frame);
  return d;
}

/** The panel as HeadsPanel renders it for the dashboard's state ('' when it renders nothing). */
function render(d: ReturnType<typeof createDashboard>): string {
  const heads = shownHeads(d.store.getState());
  return heads ? renderToStaticMarkup(<HeadsPanelView dashboard={d} scheduler={scheduler} csv={csv} heads={heads} />) : '';
}
const titles = (html: string) => [...html.matchAll(/<h2[^>]*>([^<]*)<\/h2>/g)].map((m) => m[1]);

test('a plain Q run has no Heads panel; a run with any other head or part has one', () => {
  assert.equal(render(liveRun({}, { [SCALAR_NAMES.loss]: 1 })), '');
  assert.equal(render(liveRun({ cql: { share: 0.5 }, spectral: { trunk: false } }, {})), '', 'settings of parts that are off turn nothing on');
  assert.deepEqual(titles(render(liveRun({ spectral: { sigma_max: 1 } }, {}))), ['Heads', 'Head losses', 'Gradient norm: main head (Q)', 'Spectral norm']);
  const d = createDashboard();
  assert.equal(shownHeads(d.store.getState()), undefined, 'no run yet');
  d.apply({ type: 'runData', runDir: 'runs/past', config: config({ main: 'iqn' }), scalars: [], episodes: [], epochs: [] });
  assert.equal(shownHeads(d.store.getState())?.main, 'iqn', 'an opened past run shows its own heads');
});

test('the panel draws the charts of enabled parts only, each loss named with its kind', () => {
  const c51 = liveRun({ main: 'c51', c51: { atoms: 3, v_min: 0, v_max: 2 }, ensemble: { heads: 4 } }, {
    [SCALAR_NAMES.main_loss]: 2.5, [SCALAR_NAMES.ensemble_loss]: 0.5, [SCALAR_NAMES.main_grad_norm]: 12, [SCALAR_NAMES.main_grad_clipped]: 8,
    [SCALAR_NAMES.ensemble_disagreement]: 0.3, [`${C51_DIST_PREFIX}0`]: 0.25, [`${C51_DIST_PREFIX}1`]: 0.5, [`${C51_DIST_PREFIX}2`]: 0.25,
  });
  const html = render(c51);
  assert.deepEqual(titles(html), ['Heads', 'Head losses', 'Gradient norm: main head (C51)', 'Gradient norm: ensemble', 'Ensemble disagreement', 'C51 greedy-action distribution']);
  assert.match(html, /main head \(C51: cross-entropy\)/);
  assert.match(html, /ensemble \(mean masked Huber\)/);
  assert.match(html, /latest probe, step 100 · 3 atoms on \[0, 2\]/);

  const full = config({ iqn: { auxiliary: true }, cql: { alpha: 0.1 }, spectral: { sigma_max: 1 } }).heads;
  const view = renderToStaticMarkup(<HeadsPanelView dashboard={createDashboard()} scheduler={scheduler} csv={csv} heads={full} />);
  assert.deepEqual(titles(view), ['Heads', 'Head losses', 'Gradient norm: main head (Q)', 'Gradient norm: auxiliary IQN', 'Gradient norm: CQL', 'Spectral norm']);
});

test("the C51 chart draws the latest probe's probabilities against the atoms' returns", () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: 'runs/c', config: config({ main: 'c51', c51: { atoms: 3, v_min: -1, v_max: 3 } }) });
  const c51 = d.store.getState().runConfig!.heads.c51;
  const probe = (step: number, ps: number[]) => {
    const b = new FrameBuilder('runs/c');
    b.addScalars([{ step, wall_s: step / 100, values: Object.fromEntries(ps.map((p, j) => [`${C51_DIST_PREFIX}${j}`, p])) }]);
    d.apply(b.take()!);
  };
  assert.equal(latestDistribution(d.live, c51), undefined, 'no probe yet');
  probe(100, [0.2, 0.3, 0.5]);
  probe(200, [0.6, 0.3, 0.1]);
  assert.deepEqual(latestDistribution(d.live, c51), { step: 200, atoms: [{ z: -1, p: 0.6 }, { z: 1, p: 0.3 }, { z: 3, p: 0.1 }] });
  assert.equal(latestDistribution(d.live, { ...c51, atoms: 4 }), undefined, 'an atom without a point: no picture');
});
