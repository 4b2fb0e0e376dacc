import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CsvExport, MAX_CSV_ROWS } from './csv-export.ts';
import type { MetricsRecord } from './run-dir.ts';

const epoch = { epoch: 1, step: 500, env_steps: 4000, epoch_time_s: 2.5, steps_per_s: 200, eval_mean_return: 30, eval_episodes: 2, eval_metrics: {} };
/** The CSV of `records` added in two chunks (the export reads a file a chunk at a time). */
function recordsCsv(records: MetricsRecord[], names: string[], maxRows?: number) {
  const csv = new CsvExport(names, maxRows);
  csv.add(records.slice(0, 2));
  csv.add(records.slice(2));
  return csv.result();
}

const records: MetricsRecord[] = [
  { type: 'scalars', step: 1, wall_s: 0.1, values: { 'losses/td_loss': 0.5, 'q/mean': 2 } },
  { type: 'episode', step: 40, value: 12 },
  { type: 'scalars', step: 2, wall_s: 0.2, values: { 'losses/td_loss': 'NaN' } },
  { type: 'epoch', ...epoch },
  { type: 'scalars', step: 3, wall_s: 0.3, values: { 'losses/td_loss': '-Infinity', 'a,b': 7 } },
];

test('the CSV holds every raw record of the series asked for, in their order, non-finite values spelled out', () => {
  const { text, rows } = recordsCsv(records, ['losses/td_loss', 'charts/episodic_return', 'epoch/time_s', 'a,b', 'nothing/here']);
  assert.equal(
    text,
    'series,step,value\nlosses/td_loss,1,0.5\nlosses/td_loss,2,NaN\nlosses/td_loss,3,-Infinity\ncharts/episodic_return,40,12\nepoch/time_s,1,2.5\n"a,b",3,7\n',
  );
  assert.equal(rows, 6);
});

test('an export larger than the row limit is refused with what to read instead', () => {
  assert.throws(() => recordsCsv(records, ['losses/td_loss'], 2), /more than 2 rows: read metrics\.jsonl in the run folder instead/);
  assert.equal(MAX_CSV_ROWS, 2_000_000);
});

test('system samples export as the system panel series, x = gradient step; other series ignore them', () => {
  const gpu = { available: true, reason: '', utilPercent: 90 };
  const sys: MetricsRecord[] = [
    ...records,
    { type: 'system', step: 2, env_steps: 8, wall_s: 0.2, stepsPerSec: 10, envStepsPerSec: 40, processCpuPercent: 99, hostCpuPercent: 50, rssBytes: 2 * 1024 * 1024, gpu },
    { type: 'system', step: 3, env_steps: 12, wall_s: 0.3, stepsPerSec: 12.5, envStepsPerSec: 50, processCpuPercent: 98, hostCpuPercent: 49, rssBytes: 3 * 1024 * 1024, gpu: { available: false, reason: 'NVML not found' } },
  ];
  const { text, rows } = recordsCsv(sys, ['system/steps_per_s', 'system/rss_mib', 'system/gpu_util_percent', 'losses/td_loss']);
  assert.equal(
    text,
    'series,step,value\nsystem/steps_per_s,2,10\nsystem/steps_per_s,3,12.5\nsystem/rss_mib,2,2\nsystem/rss_mib,3,3\nsystem/gpu_util_percent,2,90\nlosses/td_loss,1,0.5\nlosses/td_loss,2,NaN\nlosses/td_loss,3,-Infinity\n',
  );
  assert.equal(rows, 8);
});
