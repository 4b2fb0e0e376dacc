// Replay buffer benchmark: microseconds per sample() (stratified draw + gather + IS weights,
// through the binding) and per updatePriorities(), at capacity 1e5 and 1e6, batch 32 / 256 /
// 1024, on a full buffer with random priorities. The target (DESIGN section 3, CPU reference):
// sample + update at capacity 1e6, batch 256 under 100 µs.
//   npm run bench -- replay [--backend cpu|cuda] [--sampler proportional|rank|uniform]
//                           [--state-dim 51] [--capacity 100000,1000000] [--batch 32,256,1024]
//                           [--iters 2000] [--rank-sort-interval 1000] [--json]
import { performance } from 'node:perf_hooks';
import { ReplayBuffer } from '../native/replay.ts';
import { learnerStepsPerSecond } from './train.ts';

export const summary = 'replay buffer: µs per sample (gather + IS weights) and per priority update';

interface Options {
  backend: 'cpu' | 'cuda';
  sampler: 'proportional' | 'rank' | 'uniform';
  stateDim: number;
  capacities: number[];
  batches: number[];
  iters: number;
  rankSortInterval: number;
  json: boolean;
}

/** One measured configuration; times in microseconds per call (best of 5 rounds). */
export interface ReplayBenchRow {
  backend: string;
  sampler: string;
  capacity: number;
  batch: number;
  stateDim: number;
  sampleUs: number;
  updateUs: number;
  sampleUpdateUs: number;
}

function parseList(value: string, flag: string): number[] {
  const list = value.split(',').map(Number);
  if (list.some((x) => !Number.isInteger(x) || x < 1)) throw new Error(`${flag} expects positive integers, got '${value}'`);
  return list;
}

function parseArgs(args: string[]): Options {
  const o: Options = { backend: 'cpu', sampler: 'proportional', stateDim: 51, capacities: [100_000, 1_000_000], batches: [32, 256, 1024], iters: 2000, rankSortInterval: 1000, json: false };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    if (flag === '--json') { o.json = true; continue; }
    const value = args[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    switch (flag) {
      case '--backend':
        if (value !== 'cpu' && value !== 'cuda') throw new Error(`--backend must be cpu or cuda, got '${value}'`);
        o.backend = value;
        break;
      case '--sampler':
        if (value !== 'proportional' && value !== 'rank' && value !== 'uniform') throw new Error(`--sampler must be proportional, rank or uniform, got '${value}'`);
        o.sampler = value;
        break;
      case '--state-dim': o.stateDim = parseList(value, flag)[0]!; break;
      case '--capacity': o.capacities = parseList(value, flag); break;
      case '--batch': o.batches = parseList(value, flag); break;
      case '--iters': o.iters = parseList(value, flag)[0]!; break;
      case '--rank-sort-interval': o.rankSortInterval = parseList(value, flag)[0]!; break;
      default: throw new Error(`unknown option '${flag}' (see bench/replay.ts)`);
    }
  }
  return o;
}

/** A full buffer: capacity transitions in chunks, then every priority set to a random |td|. */
function filledBuffer(o: Options, capacity: number): ReplayBuffer {
  const replay = new ReplayBuffer({ capacity, stateDim: o.stateDim, sampler: o.sampler, rankSortInterval: o.rankSortInterval, device: o.backend, seed: 1 });
  if (o.backend === 'cuda' && replay.backend !== 'cuda') console.error(`note: --backend cuda runs on the CPU here: ${replay.fallbackReason}`);
  const chunk = Math.min(capacity, 65_536);
  const states = Float32Array.from({ length: chunk * o.stateDim }, (_, i) => Math.sin(i));
  const batch = { states, nextStates: states, actions: new Int32Array(chunk), rewards: new Float32Array(chunk), dones: new Uint8Array(chunk) };
  for (let done = 0; done < capacity; done += chunk) {
    const n = Math.min(chunk, capacity - done);
    replay.insertBatch(n === chunk ? batch : {
      states: states.subarray(0, n * o.stateDim), nextStates: states.subarray(0, n * o.stateDim),
      actions: batch.actions.subarray(0, n), rewards: batch.rewards.subarray(0, n), dones: batch.dones.subarray(0, n),
    });
  }
  const indices = Int32Array.from({ length: capacity }, (_, i) => i);
  const tds = Float32Array.from(indices, (i) => Math.abs(Math.sin(i * 12.9898)) * 10);
  replay.updatePriorities(indices, new Uint32Array(capacity).fill(1), tds);
  return replay;
}

/**
 * Best of 5 rounds of the mean µs per call of fn over `iters` calls. The minimum, as Python's
 * timeit advises: on a shared machine the other rounds measure the neighbours' load.
 */
function timeUs(iters: number, fn: (i: number) => void): number {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) fn(i);
    rounds.push(((performance.now() - t0) * 1000) / iters);
  }
  return Math.min(...rounds);
}

function measure(o: Options, replay: ReplayBuffer, batch: number): Omit<ReplayBenchRow, 'capacity' | 'stateDim'> {
  const iters = Math.max(50, Math.round((o.iters * 256) / batch));
  const tds = Float32Array.from({ length: batch }, (_, i) => ((i * 7919) % 1000) / 100);
  const samples = Array.from({ length: 16 }, () => replay.sample(batch));
  for (let i = 0; i < 100; i++) replay.sample(batch); // warm-up
  const sampleUs = timeUs(iters, () => { replay.sample(batch); });
  const updateUs = timeUs(iters, (i) => {
    const s = samples[i % samples.length]!;
    replay.updatePriorities(s.indices, s.generations, tds);
  });
  const sampleUpdateUs = timeUs(iters, () => {
    const s = replay.sample(batch);
    replay.updatePriorities(s.indices, s.generations, tds);
  });
  return { backend: replay.backend, sampler: o.sampler, batch, sampleUs, updateUs, sampleUpdateUs };
}

/** Runs the benchmark and prints a table, or JSON rows with --json. */
export function run(args: string[]): void {
  const o = parseArgs(args);
  const rows: ReplayBenchRow[] = [];
  for (const capacity of o.capacities) {
    const replay = filledBuffer(o, capacity);
    for (const batch of o.batches) rows.push({ capacity, stateDim: o.stateDim, ...measure(o, replay, batch) });
  }
  if (o.json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const header = ['backend', 'sampler', 'capacity', 'batch', 'D', 'sample µs', 'update µs', 'sample+update µs'];
  const table = rows.map((r) => [r.backend, r.sampler, String(r.capacity), String(r.batch), String(r.stateDim),
    r.sampleUs.toFixed(1), r.updateUs.toFixed(1), r.sampleUpdateUs.toFixed(1)]);
  const widths = header.map((h, c) => Math.max(h.length, ...table.map((row) => row[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of table) console.log(line(row));
  if (rows.some((r) => r.backend === 'cpu')) {
    const rate = learnerStepsPerSecond(300);
    console.log(`\ntraining steps/s, CPU learner, reference network (state_dim 51, 45 actions, 256 x 256 dueling, batch 256): ${rate.toFixed(1)}`);
  }
}
