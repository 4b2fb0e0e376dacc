import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseRunConfig } from '../../common/config.ts';
import { evalCurves } from '../../common/trading-curves.ts';
import type { HostMessage } from '../../common/protocol.ts';
import { createEvalCurvesRequester } from '../lib/eval-curves-request.ts';
import { createDashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';
import { curvePath, shownTradingRun, TradingCurvesView, yRange } from './TradingCurves.tsx';
import { sharpeNote } from './TradingEpochCharts.tsx';

const trading = parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } });
const epoch = (n: number) => ({ epoch: n, step: 50 * n, env_steps: 400 * n, epoch_time_s: 1, steps_per_s: 50, eval_mean_return: 1, eval_episodes: 1, eval_metrics: {} });

test('the panel follows the run shown: the live trading run\'s last epoch, or the opened past run\'s; not CartPole', () => {
  const d = createDashboard();
  assert.deepEqual(shownTradingRun(d.store.getState()), { runDir: undefined, epoch: 0, trading: false });
  d.store.setState({ runDir: '/runs/live', runConfig: trading, lastEpoch: epoch(3) });
  assert.deepEqual(shownTradingRun(d.store.getState()), { runDir: '/runs/live', epoch: 3, trading: true });
  d.store.setState({ view: { kind: 'history', runDir: '/runs/past', config: parseRunConfig({ env: { kind: 'cartpole' } }), lastEpoch: epoch(5) } });
  assert.deepEqual(shownTradingRun(d.store.getState()), { runDir: '/runs/past', epoch: 5, trading: false });
});

test('curves are drawn in their box: the y range spans both lines, a position as steps, NaN breaks the line', () => {
  assert.deepEqual(yRange([{ x: [0, 1], y: [1, 1.2] }, { x: [0, 1], y: [0.9, NaN] }]), [0.9, 1.2]);
  assert.deepEqual(yRange([{ x: [0], y: [1] }]), [0.5, 1.5], 'a flat curve is widened');
  assert.deepEqual(yRange([]), [0, 1]);
  // W = 320, H = 110, padding l 44 r 6 t 6 b 16: x over [0, 2] -> 44..314, y over [0, 1] -> 94..6.
  assert.equal(curvePath({ x: [0, 1, 2], y: [0, 1, 0.5] }, 2, [0, 1]), 'M44.0,94.0L179.0,6.0L314.0,50.0');
  assert.equal(curvePath({ x: [1, 2], y: [0, 1] }, 2, [0, 1], true), 'M179.0,94.0H179.0V6.0L314.0,6.0');
  assert.equal(curvePath({ x: [0, 1, 2], y: [0, NaN, 1] }, 2, [0, 1]), 'M44.0,94.0M314.0,6.0');
});

test('one evaluation\'s curves: equity beside buy-and-hold with their last values, position, drawdowns; the Sharpe note names the bars per year', () => {
  const equity = [1, 1.1, 0.99, 1.05];
  const c = evalCurves({ equity, buy_and_hold_equity: [1, 1.01, 1.02, 1.03], position: [1, -1, 0] }, 2, 100)!;
  const html = renderToStaticMarkup(<TradingCurvesView curves={c} />);
  assert.match(html, /aria-label="Equity".*agent 1\.05.*buy and hold 1\.03/s);
  assert.match(html, /aria-label="Position".*agent 0\.00/s);
  assert.match(html, /aria-label="Drawdown".*agent 4\.5%.*buy and hold 0\.0%/s, 'agent drawdown 1 - 1.05 / 1.1');
  assert.match(html, /validation walk of 3 bars/);
  assert.equal((html.match(/<path /g) ?? []).length, 5);
  assert.match(sharpeNote({ bars_per_year: 252.4, bars: 1000 }), /√\(252 bars per year.*over the 1000 bars/);
  assert.match(sharpeNote(undefined), /bars per year of the validation span/);
});

test('the requester matches the answer to its id and rejects on the host\'s evalCurves error', async () => {
  const listeners: ((m: HostMessage) => void)[] = [];
  const sent: unknown[] = [];
  const transport = { subscribe: (l: (m: HostMessage) => void) => (listeners.push(l), () => undefined), send: (c: unknown) => sent.push(c) } as unknown as Transport;
  const ask = createEvalCurvesRequester(transport);
  const a = ask('/runs/a', 2);
  const b = ask('/runs/a', 3);
  assert.deepEqual(sent, [{ type: 'evalCurves', id: 1, runDir: '/runs/a', epoch: 2 }, { type: 'evalCurves', id: 2, runDir: '/runs/a', epoch: 3 }]);
  const c = evalCurves({ equity: [1, 2], buy_and_hold_equity: [1, 1], position: [1] }, 2, 10)!;
  listeners.forEach((l) => l({ type: 'evalCurves', id: 1, runDir: '/runs/a', epoch: 2, curves: c }));
  assert.deepEqual(await a, c);
  listeners.forEach((l) => l({ type: 'error', command: 'evalCurves', message: 'run gone' }));
  await assert.rejects(b, /run gone/);
});
