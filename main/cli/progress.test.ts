import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCALAR_NAMES } from '../../common/run.ts';
import { formatDuration, ProgressLine } from './progress.ts';

/** A non-TTY stream that keeps what is written. */
function sink(): { out: NodeJS.WriteStream; lines: string[] } {
  const lines: string[] = [];
  const out = { isTTY: false, write: (s: string) => (lines.push(s.trimEnd()), true) } as unknown as NodeJS.WriteStream;
  return { out, lines };
}

const point = (step: number, wall_s: number) => ({ step, wall_s, values: { [SCALAR_NAMES.loss]: 0.25 } });
/** The status line printed last. */
const status = (lines: string[]) => lines.filter((l) => l.startsWith('step ')).at(-1);

test('the progress line shows no rate and no ETA until two reads a second apart give them, then the rate and the time left', () => {
  const { out, lines } = sink();
  const p = new ProgressLine(out, 1000);
  p.message('start'); // forces a draw: nothing yet (no step)
  p.scalars([point(100, 1)]);
  p.message('first read');
  assert.match(status(lines)!, /^step 100\/1000 \| - steps\/s \| loss 0\.2500 \| return - \| ETA -$/);
  p.scalars([point(300, 3)]); // 200 steps in 2 s
  p.message('second read');
  assert.match(lines.at(-1)!, /^step 300\/1000 \| 100 steps\/s \| .* \| ETA 7s$/); // 700 steps left at 100/s
  p.scalars([point(1000, 10)]);
  p.message('last read');
  assert.match(lines.at(-1)!, /\| ETA 0s$/);
});

test('a trading run\'s last epoch (validation line, then test line) prints each line once: the final status line is not repeated', () => {
  const { out, lines } = sink();
  const p = new ProgressLine(out, 150, { rewardScale: 1 });
  p.episodes([{ value: -0.0032 }]);
  p.scalars([point(150, 2)]);
  const metrics = { return: 0.001, return_simple: 0.001, sharpe: 1.5, sharpe_se: 7, max_drawdown: 0.004, buy_and_hold_return: -0.0004, buy_and_hold_sharpe: -0.4 };
  p.epoch({ epoch: 1, step: 150, env_steps: 2600, epoch_time_s: 1.5, steps_per_s: 100, eval_mean_return: 0.00093, eval_episodes: 1, eval_metrics: metrics, test_mean_return: -0.006, test_metrics: metrics }, 1);
  p.message('warning: after the epoch'); // one more message with no step in between
  p.done({ state: 'finished', steps: 150, env_steps: 2600, wall_s: 2 });
  const kinds = lines.map((l) => l.replace(/^(step|epoch|held-out|warning|finished).*$/s, '$1'));
  assert.deepEqual(kinds, ['step', 'epoch', 'held-out', 'warning', 'finished'], lines.join('\n'));
  assert.match(lines[0]!, /^step 150\/150 \| - steps\/s \| loss 0\.2500 \| episode reward -32\.0 bp \| ETA 0s$/);
  assert.match(lines[1]!, /^epoch 1\/1: step 150, 100 steps\/s, epoch time 1\.5s, eval reward 9\.3 bp over 1 walk\(s\); /);
  assert.match(lines[2]!, /^held-out test span, evaluated once at the end of the run: reward -60\.0 bp, test span: /);
});

test('a status line that changed since it was printed is printed again after a message', () => {
  const { out, lines } = sink();
  const p = new ProgressLine(out, 100, { now: () => 0 });
  p.scalars([point(50, 1)]);
  p.scalars([point(100, 2)]); // within 10 s of the first print: not printed yet
  p.message('epoch 1');
  assert.deepEqual(lines.map((l) => l.replace(/ \|.*$/, '')), ['step 50/100', 'epoch 1', 'step 100/100']);
});

/** A fake clock in ms that the test moves. */
function clock() {
  const c = { ms: 0, now: () => c.ms };
  return c;
}

test('without a TTY the status line comes within an epoch too, at most one line per 10 s: a 25 s epoch read every 200 ms prints 3 (at 0.2, 10.2 and 20.2 s)', () => {
  const { out, lines } = sink();
  const c = clock();
  const p = new ProgressLine(out, 10_000, { now: c.now });
  for (let k = 1; k <= 125; k++) {
    c.ms = k * 200; // the session reads the scalars every 200 ms; 400 steps/s
    p.scalars([point(80 * k, k / 5)]);
  }
  assert.deepEqual(lines.map((l) => l.replace(/ \| loss.*\| ETA/, ' | ETA')), ['step 80/10000 | - steps/s | ETA -', 'step 4080/10000 | 400 steps/s | ETA 15s', 'step 8080/10000 | 400 steps/s | ETA 5s']);
});

test('on a TTY every read within an epoch redraws the one status line in place', () => {
  const writes: string[] = [];
  const c = clock();
  const p = new ProgressLine({ isTTY: true, write: (s: string) => writes.push(s) }, 10_000, { now: c.now });
  for (let k = 1; k <= 10; k++) {
    c.ms = k * 200;
    p.scalars([point(80 * k, k / 5)]);
  }
  assert.equal(writes.length, 10);
  assert.ok(writes.every((w) => w.startsWith('\r\x1b[2Kstep ') && !w.includes('\n')), 'each write clears the line and rewrites it, with no newline');
  assert.match(writes.at(-1)!.slice('\r\x1b[2K'.length), /^step 800\/10000 \| 400 steps\/s \| .* \| ETA 23s$/);
});

test('with a target return the ETA is an upper bound, ETA ≤ ...; the rest of the line is the same, and the end still reads ETA 0s', () => {
  const lines = (mayStopEarly: boolean) => {
    const { out, lines } = sink();
    const p = new ProgressLine(out, 1000, { mayStopEarly });
    for (const [step, wall] of [[100, 1], [300, 3], [1000, 10]] as const) {
      p.scalars([point(step, wall)]);
      p.message(`read at ${wall} s`);
    }
    return lines.filter((l) => l.startsWith('step '));
  };
  const bounded = lines(true), plain = lines(false);
  assert.match(bounded[1]!, /\| ETA ≤ 7s$/, '700 steps left at 100/s, at most');
  assert.deepEqual(bounded.map((l) => l.replace('ETA ≤ ', 'ETA ')), plain);
  assert.deepEqual([bounded[0]!.slice(-5), bounded[2]!.slice(-6)], ['ETA -', 'ETA 0s']);
});

test("the last line says how the run ended: a halt's reason, a run that reached its target return with the epoch and the evaluation against the target", () => {
  const { out, lines } = sink();
  const p = new ProgressLine(out, 50_000);
  p.done({ state: 'finished', steps: 50_000, env_steps: 200_000, wall_s: 75 });
  p.done({ state: 'halted', haltReason: 'NaN in loss at step 60', steps: 59, env_steps: 236, wall_s: 1 });
  p.done({ state: 'finished', steps: 15_000, env_steps: 60_000, wall_s: 22, target: { target_return: 475, epoch: 3, epochs: 10, eval_mean_return: 500 } });
  // A trading target in reward units: as many decimals as it takes not to read as below it.
  p.done({ state: 'finished', steps: 300, env_steps: 1200, wall_s: 3, target: { target_return: 12.34, epoch: 2, epochs: 4, eval_mean_return: 12.341 } });
  assert.deepEqual(lines, [
    'finished after 50000 steps, 200000 env steps, 1m15s',
    'halted: NaN in loss at step 60 after 59 steps, 236 env steps, 1s',
    'finished at the target return: epoch 3 of 10, evaluation 500.0 >= 475, after 15000 steps, 60000 env steps, 22s',
    'finished at the target return: epoch 2 of 4, evaluation 12.34 >= 12.34, after 300 steps, 1200 env steps, 3s',
  ]);
});

test('formatDuration writes hours and minutes, minutes and seconds, or seconds; ? for nonsense', () => {
  assert.equal(formatDuration(42.4), '42s');
  assert.equal(formatDuration(185), '3m05s');
  assert.equal(formatDuration(3720), '1h02m');
  assert.equal(formatDuration(-1), '?');
  assert.equal(formatDuration(Number.NaN), '?');
});
