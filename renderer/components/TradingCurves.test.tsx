import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseRunConfig } from '../../common/config.ts';
import { evalCurves } from '../../common/trading-curves.ts';
import type { HostMessage } from '../../common/protocol.ts';
import { createEvalCurvesRequester } from '../lib/eval-curves-request.ts';
import { createDashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';
import { curveRows, plotAxis, shownTradingRun, TradingCurvesView, yRange } from './TradingCurves.tsx';
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

test('the curves of one plot share rows by bar: each row holds every curve\'s value there, so a hover reads them all; a position is held, NaN leaves a gap', () => {
  assert.deepEqual(yRange([{ x: [0, 1], y: [1, 1.2] }, { x: [0, 1], y: [0.9, NaN] }]), [0.9, 1.2]);
  assert.deepEqual(yRange([{ x: [0], y: [1] }]), [0.5, 1.5], 'a flat curve is widened');
  assert.deepEqual(yRange([]), [0, 1]);
  const agent = { x: [0, 2, 4], y: [1, 1.2, 1.1] };
  const hold = { x: [0, 1, 4], y: [1, 1.01, 1.04] };
  assert.deepEqual(curveRows({ agent, hold }), [
    { x: 0, agent: 1, hold: 1 },
    { x: 1, agent: 1.1, hold: 1.01 },
    { x: 2, agent: 1.2, hold: 1.02 },
    { x: 4, agent: 1.1, hold: 1.04 },
  ]);
  assert.deepEqual(curveRows({ position: { x: [1, 3], y: [2, -1] }, other: { x: [0, 2], y: [0, 0] } }, true), [
    { x: 0, other: 0 },
    { x: 1, position: 2, other: 0 },
    { x: 2, position: 2, other: 0 },
    { x: 3, position: -1 },
  ], 'held over each bar; nothing before the first point or past the last');
  assert.deepEqual(curveRows({ a: { x: [0, 1, 2], y: [1, NaN, 3] }, b: { x: [0, 1, 2], y: [0, 0, 0] } }).map((r) => r.a), [1, undefined, 3]);
});

test('one evaluation\'s curves: equity beside buy-and-hold with their last values, position, drawdowns; the Sharpe note names the bars per year', () => {
  const equity = [1, 1.1, 0.99, 1.05];
  const c = evalCurves({ equity, buy_and_hold_equity: [1, 1.01, 1.02, 1.03], position: [1, -1, 0] }, 2, 100)!;
  const html = renderToStaticMarkup(<TradingCurvesView curves={c} />);
  assert.match(html, /aria-label="Equity".*agent 1\.05.*buy and hold 1\.03/s);
  assert.match(html, /aria-label="Position".*agent 0\.00/s);
  assert.match(html, /aria-label="Drawdown".*agent 4\.5%.*buy and hold 0\.0%/s, 'agent drawdown 1 - 1.05 / 1.1');
  assert.match(html, /validation walk of 3 bars/);
  assert.match(sharpeNote({ bars_per_year: 252.4, bars: 1000 }), /√\(252 bars per year.*over the 1000 bars/);
  assert.match(sharpeNote(undefined), /bars per year of the validation span/);
});

test('an equity that moves under 1 % reads apart: round ticks with the decimals their step needs, legend values one decimal finer (the walkthrough saw "1.00" at every tick)', () => {
  const eq = plotAxis([0.9931, 1.0112], 5, 'multiple');
  assert.deepEqual(eq.ticks, [0.99, 0.995, 1, 1.005, 1.01, 1.015]);
  assert.deepEqual(eq.domain, [0.99, 1.015]);
  assert.deepEqual(eq.ticks.map(eq.tick), ['0.990', '0.995', '1.000', '1.005', '1.010', '1.015']);
  assert.equal(eq.value(0.99724), '0.9972');
  // A position between -1 and 0.32: round ticks, not the data's ends split in four.
  const pos = plotAxis([-1, 0.32], 5, 'multiple');
  assert.deepEqual(pos.ticks, [-1, -0.5, 0, 0.5]);
  assert.deepEqual(pos.ticks.map(pos.tick), ['-1.0', '-0.5', '0.0', '0.5']);
  // Drawdowns of a few tenths of a percent: every tick label differs.
  const dd = plotAxis([0, 0.0079], 5, 'percent');
  assert.deepEqual(dd.ticks.map(dd.tick), ['0.0%', '0.2%', '0.4%', '0.6%', '0.8%']);
  assert.equal(dd.value(0.00374), '0.37%');
  const c = evalCurves({ equity: [1, 1.004, 0.9931, 0.99724], buy_and_hold_equity: [1, 1.0112, 1.005, 1.0021], position: [1, -1, 0] }, 2, 100)!;
  assert.match(renderToStaticMarkup(<TradingCurvesView curves={c} />), /aria-label="Equity".*agent 0\.9972.*buy and hold 1\.0021/s);
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
