// The run history's listing of a runs folder (issue 26 item 1). Each run's summary is kept and
// reused while its files are unchanged (same inode, size and time of config.json, metrics.jsonl
// and events.log), and a changed run is read again in chunks off the event loop: a burst of
// listings, or one run with gigabytes of metrics, no longer holds the trainer host's event loop
// (which also answers the supervisor's heartbeats) for seconds per request. Listings asked for
// while one is being made share it.
import { lstat, readdir } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { basename, dirname, join } from 'node:path';
import type { RunConfig } from '../../common/config.ts';
import { lineChunks, readRegularText } from './regular-file.ts';
import { metricsChunks, readRunConfig } from './run-dir.ts';
import { runLockHolder } from './run-lock.ts';
import { parseEvents, RunTally, type RunResults } from './run-results.ts';

/** Summary of a past run for the run history. */
export interface RunListing extends Omit<RunResults, 'state'> {
  /** How it ended (RunResults.state), or live while a process holds its lock (run-lock.ts). */
  state: RunResults['state'] | 'live';
  runDir: string;
  name: string;
  createdMs: number;
  env: string;
  epochs: number;
  lastStep: number;
  lastEvalReturn?: number;
  /** Name of the `--seeds` group the run belongs to (its summary file without `.json`), if any. */
  seedGroup?: string;
  /** The run's config.json, validated with its defaults filled in (the hyperparameter table's columns). */
  config: RunConfig;
}

/** What a run's files say, before its lock and seeds group are looked at. */
type FileListing = Omit<RunListing, 'state' | 'seedGroup'> & { state: RunResults['state'] };

/** Largest seeds summary file read when listing runs (a bigger one is not ours: skipped). */
const MAX_SEED_SUMMARY_BYTES = 1024 * 1024;

/** Files whose change makes a run's summary stale. */
const SUMMARY_FILES = ['config.json', 'metrics.jsonl', 'events.log'];

/** Lists runs folders; one instance per trainer host keeps the summaries between listings. */
export class RunIndex {
  private readonly summaries = new Map<string, { stamp: string; listing: FileListing | undefined }>();
  private readonly building = new Map<string, Promise<RunListing[]>>();

  /**
   * The runs in `runsDir`, newest first, with their `--seeds` group; folders without a valid
   * config are skipped. A call while a listing of `runsDir` is being made gets that listing,
   * unless `fresh` (after this process changed a run: a listing begun before would miss it).
   * @throws the fs error when `runsDir` exists but cannot be read.
   */
  list(runsDir: string, fresh = false): Promise<RunListing[]> {
    const current = this.building.get(runsDir);
    if (current && !fresh) return current;
    const made = this.build(runsDir).finally(() => {
      if (this.building.get(runsDir) === made) this.building.delete(runsDir);
    });
    this.building.set(runsDir, made);
    return made;
  }

  private async build(runsDir: string): Promise<RunListing[]> {
    let names: string[];
    try {
      names = await readdir(runsDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const groups = await seedGroups(runsDir, names);
    const out: RunListing[] = [];
    const present = new Set<string>();
    for (const name of names) {
      if (name.startsWith('.')) continue; // the trash, temporary files: never runs
      const runDir = join(runsDir, name);
      present.add(runDir);
      const stamp = await stampOf(runDir);
      let kept = this.summaries.get(runDir);
      if (kept?.stamp !== stamp) this.summaries.set(runDir, (kept = { stamp, listing: await readListing(runDir) }));
      if (!kept.listing) continue;
      const group = groups.get(name);
      out.push({ ...kept.listing, ...(group ? { seedGroup: group } : {}), ...(runLockHolder(runDir) ? { state: 'live' as const } : {}) });
    }
    for (const runDir of this.summaries.keys()) if (dirname(runDir) === runsDir && !present.has(runDir)) this.summaries.delete(runDir);
    return out.sort((a, b) => b.name.localeCompare(a.name));
  }
}

/** The identity, size and time of a run's summary files ('-' for a missing one). */
async function stampOf(runDir: string): Promise<string> {
  const parts: string[] = [];
  for (const file of SUMMARY_FILES) {
    try {
      const st = await lstat(join(runDir, file));
      parts.push(`${st.ino}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push('-');
    }
  }
  return parts.join('/');
}

/**
 * A run's summary from its files, read in chunks off the event loop; undefined when the folder
 * is not a run (no valid config.json). A metrics file or event log that is a link or not a
 * regular file counts as empty.
 */
async function readListing(runDir: string): Promise<FileListing | undefined> {
  let config: RunConfig;
  try {
    config = readRunConfig(runDir);
  } catch {
    return undefined;
  }
  const tally = new RunTally();
  try {
    for await (const { records } of metricsChunks(runDir)) for (const r of records) tally.addRecord(r);
  } catch {
    /* a link or not a regular file: no records */
  }
  try {
    for await (const { lines } of lineChunks(join(runDir, 'events.log'))) for (const e of parseEvents(lines)) tally.addEvent(e);
  } catch {
    /* a link or not a regular file: no events (the run lists as incomplete) */
  }
  let createdMs: number;
  try {
    createdMs = (await lstat(join(runDir, 'config.json'))).mtimeMs;
  } catch {
    return undefined; // gone meanwhile
  }
  const last = tally.lastEpoch;
  return { runDir, name: basename(runDir), createdMs, env: config.env.kind, config, epochs: tally.epochs, lastStep: last?.step ?? 0, lastEvalReturn: last?.eval_mean_return, ...tally.results() };
}

/**
 * The `--seeds` groups among `names` in `runsDir`: run folder name -> group name, from the
 * summary files `<stamp>-<name>-seeds.json` (main/cli/seeds.ts) whose `runs[].run_dir` name the
 * runs (matched by folder name, so a moved runs folder keeps its groups). Unreadable, oversized
 * or malformed files are skipped; the event loop runs between files.
 */
async function seedGroups(runsDir: string, names: readonly string[]): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  for (const file of names) {
    if (!file.endsWith('-seeds.json')) continue;
    await nextTurn();
    try {
      const summary = JSON.parse(readRegularText(join(runsDir, file), MAX_SEED_SUMMARY_BYTES) ?? '') as { runs?: unknown };
      if (!Array.isArray(summary.runs)) continue;
      for (const r of summary.runs as { run_dir?: unknown }[])
        if (typeof r?.run_dir === 'string') groups.set(basename(r.run_dir), file.slice(0, -'.json'.length));
    } catch {
      continue;
    }
  }
  return groups;
}
