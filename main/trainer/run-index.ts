// The run history's listing of a runs folder (issue 26 item 1). Each run's summary is kept and
// reused while its files are unchanged (same inode, size and time of config.json, metrics.jsonl
// and events.log), and a changed run is read again in chunks off the event loop: a burst of
// listings, or one run with gigabytes of metrics, no longer holds the trainer host's event loop
// (which also answers the supervisor's heartbeats) for seconds per request. Listings asked for
// while one is being made share it.
import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { RunConfig } from '../../common/config.ts';
import { GROUP_MARKER_FILE, type GroupListing, type GroupMarker } from '../../common/seed-group.ts';
import { lineChunks } from './regular-file.ts';
import { metricsChunks, readRunConfig } from './run-dir.ts';
import { runLockHolder } from './run-lock.ts';
import { parseEvents, RunTally, type RunResults } from './run-results.ts';
import { assignGroups, readGroupMarker, SeedSummaries } from './seed-groups.ts';

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

/** What a run's files say, before its lock and seeds group are looked at (`marker`: its group.json). */
type FileListing = Omit<RunListing, 'state' | 'seedGroup'> & { state: RunResults['state']; marker?: GroupMarker };

/** Files whose change makes a run's summary stale. */
const SUMMARY_FILES = ['config.json', 'metrics.jsonl', 'events.log', GROUP_MARKER_FILE];

/** Lists runs folders; one instance per trainer host keeps the summaries between listings. */
export class RunIndex {
  private readonly summaries = new Map<string, { stamp: string; listing: FileListing | undefined }>();
  private readonly building = new Map<string, Promise<RunListing[]>>();
  private readonly seedSummaries = new SeedSummaries();
  /** The seed groups of each runs folder's last listing. */
  private readonly lastGroups = new Map<string, GroupListing[]>();

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
    const summaries = await this.seedSummaries.read(runsDir, names);
    const out: (RunListing & { marker?: GroupMarker })[] = [];
    const present = new Set<string>();
    for (const name of names) {
      if (name.startsWith('.')) continue; // the trash, temporary files: never runs
      const runDir = join(runsDir, name);
      present.add(runDir);
      const stamp = await stampOf(runDir);
      let kept = this.summaries.get(runDir);
      if (kept?.stamp !== stamp) this.summaries.set(runDir, (kept = { stamp, listing: await readListing(runDir) }));
      if (!kept.listing) continue;
      out.push({ ...kept.listing, ...(runLockHolder(runDir) ? { state: 'live' as const } : {}) });
    }
    for (const runDir of this.summaries.keys()) if (dirname(runDir) === runsDir && !present.has(runDir)) this.summaries.delete(runDir);
    const { groupOf, groups } = assignGroups(out, summaries);
    this.lastGroups.set(runsDir, groups);
    return out
      .map(({ marker: _marker, ...r }) => {
        const group = groupOf.get(r.name);
        return group ? { ...r, seedGroup: group } : r;
      })
      .sort((a, b) => b.name.localeCompare(a.name));
  }

  /** The seed groups of the last listing of `runsDir` (list), newest first; none before the first listing. */
  groups(runsDir: string): GroupListing[] {
    return this.lastGroups.get(runsDir) ?? [];
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
  const marker = readGroupMarker(runDir);
  return { runDir, name: basename(runDir), createdMs, env: config.env.kind, config, epochs: tally.epochs, lastStep: last?.step ?? 0, lastEvalReturn: last?.eval_mean_return, ...tally.results(), ...(marker ? { marker } : {}) };
}
