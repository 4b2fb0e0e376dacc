import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostMessageSchema, type HostMessage } from '../../common/protocol.ts';
import { MAX_CURVE_POINTS } from '../../common/trading-curves.ts';
import { readEvalCurves, writeEvalCurves } from './eval-curves.ts';
import { TrainerHost, type HostPort, type SessionApi } from './host.ts';

/** A walk of n bars: equity and buy-and-hold compounding known returns, position alternating. */
function series(n: number) {
  const equity = new Float64Array(n + 1).fill(1);
  const hold = new Float64Array(n + 1).fill(1);
  for (let i = 1; i <= n; i++) {
    equity[i] = equity[i - 1]! * (1 + (i % 2 ? 0.002 : -0.0015));
    hold[i] = hold[i - 1]! * (1 + 0.0001);
  }
  return { equity, buy_and_hold_equity: hold, position: Float64Array.from({ length: n }, (_, i) => (i % 10 < 5 ? 1 : -1)) };
}

test('an evaluation\'s curves are written atomically per epoch, bounded, and read back; none for a non-trading evaluation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'eval-curves-'));
  try {
    const s = series(20_000);
    const w = writeEvalCurves(dir, s, 2, 400)!;
    assert.deepEqual(readdirSync(join(dir, 'eval')), ['epoch-2.json'], 'one file, no temporary left');
    const r = readEvalCurves(dir, 2)!;
    assert.deepEqual(r, w);
    assert.equal(r.equity.y.at(-1), s.equity[20_000]);
    assert.ok(r.equity.x.length <= MAX_CURVE_POINTS);
    assert.equal(writeEvalCurves(dir, {}, 3, 500), undefined);
    assert.equal(writeEvalCurves(dir, undefined, 3, 500), undefined);
    assert.equal(readEvalCurves(dir, 3), null);
    writeFileSync(join(dir, 'eval', 'epoch-4.json'), '{"epoch": 4}');
    assert.throws(() => readEvalCurves(dir, 4), /epoch-4.json is not a valid evaluation-curves file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the host answers evalCurves with the file\'s curves, null when there is none, and refuses a folder outside the runs folder', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'eval-curves-runs-'));
  try {
    const runDir = join(runsDir, 'run-1');
    mkdirSync(runDir);
    writeEvalCurves(runDir, series(100), 1, 50);
    const session = { listRuns: () => [], readRunConfig: () => assert.fail(), readRunMetrics: () => [], startRun: () => assert.fail() } as unknown as SessionApi;
    const host = new TrainerHost(session, { runsDir, framePeriodMs: 60_000 });
    const sent: HostMessage[] = [];
    let listener: ((d: unknown) => void) | undefined;
    const port: HostPort = { post: (m) => sent.push(HostMessageSchema.parse(JSON.parse(JSON.stringify(m)))), listen: (l) => ((listener = l), () => undefined) };
    host.attach(port);
    const ask = async (cmd: unknown) => {
      listener!(cmd);
      for (let i = 0; i < 50 && !sent.some((m) => m.type === 'evalCurves' || m.type === 'error'); i++) await new Promise((r) => setImmediate(r));
      const m = sent.find((x) => x.type === 'evalCurves' || x.type === 'error');
      sent.length = 0;
      return m;
    };
    sent.length = 0;
    const a = await ask({ type: 'evalCurves', id: 3, runDir, epoch: 1 });
    assert.ok(a?.type === 'evalCurves' && a.id === 3 && a.curves);
    assert.equal(a.curves.bars, 100);
    assert.equal(a.curves.equity.x.length, 101);
    const b = await ask({ type: 'evalCurves', id: 4, runDir, epoch: 2 });
    assert.ok(b?.type === 'evalCurves' && b.curves === null);
    const c = await ask({ type: 'evalCurves', id: 5, runDir: '../etc', epoch: 1 });
    assert.ok(c?.type === 'error' && c.command === 'evalCurves');
    await host.shutdown();
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
});
