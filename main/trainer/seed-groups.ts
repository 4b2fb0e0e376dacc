// Seed groups on disk (common/seed-group.ts): the `group.json` marker in each member's run folder
// and the summary files `<runsDir>/<group>.json` beside them (main/cli/seeds.ts). Both are read as
// hostile input, as the rest of the run history is: only regular files (never through a link),
// bounded in size before anything is allocated, parsed with a schema; a file that fails any of
// that is skipped and never breaks the listing. Summary files are kept per runs folder and read
// again only when they change (same inode, size and time).
import { lstat } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { GROUP_MARKER_FILE, GroupMarkerSchema, GroupNameSchema, groupState, type GroupHeadline, type GroupListing, type GroupMarker, type MemberState } from '../../common/seed-group.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { readRegularText } from './regular-file.ts';

/** Largest group.json read (one is about 150 bytes; 100 seeds make about 1.2 KB). */
const MAX_MARKER_BYTES = 4096;
/** Largest seeds summary file read (a bigger one is not ours: skipped). */
const MAX_SUMMARY_BYTES = 1024 * 1024;
/** Ending of a seeds summary file's name. */
const SUMMARY_SUFFIX = '-seeds.json';

/** Writes `marker` as the run folder's group.json (atomically: a reader sees all of it or none). */
export function writeGroupMarker(runDir: string, marker: GroupMarker): void {
  writeFileAtomic(join(runDir, GROUP_MARKER_FILE), `${JSON.stringify(marker)}\n`);
}

/** The run folder's group.json, or undefined when it is missing, a link, not a regular file, too large or malformed. */
export function readGroupMarker(runDir: string): GroupMarker | undefined {
  try {
    const text = readRegularText(join(runDir, GROUP_MARKER_FILE), MAX_MARKER_BYTES);
    if (text === undefined) return undefined;
    const parsed = GroupMarkerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const Interval = z.tuple([z.number(), z.number()]);
/** A figure's statistics over seeds: the Student-t interval of the mean, or (summaries written before it) the bootstrap interval of the IQM. */
const StatsSchema = z.object({ n: z.number().int().positive(), mean: z.number(), mean_ci95: Interval.optional(), iqm_ci95: Interval.optional() });
/** The part of a summary file (main/cli/seeds.ts summarizeSeeds) the run history uses; anything else in it is ignored. */
const SummaryFileSchema = z.object({
  seeds: z.array(z.number().int().nonnegative()).max(100).optional(),
  runs: z.array(z.unknown()).max(100),
  eval_mean_return: StatsSchema.optional(),
  eval_mean_reward_bps: StatsSchema.optional(),
});

/** What a summary file says: the folder names of its runs, its seeds and its headline figure. */
export interface SeedSummary {
  runNames: string[];
  seeds: number[];
  headline?: GroupHeadline;
}

/** Parses a summary file's text; undefined when it is not one. */
function parseSummary(text: string): SeedSummary | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = SummaryFileSchema.safeParse(json);
  if (!r.success) return undefined;
  // Matched by folder name, so a moved runs folder keeps its groups.
  const runNames = r.data.runs.flatMap((x) => (typeof x === 'object' && x !== null && typeof (x as { run_dir?: unknown }).run_dir === 'string' ? [basename((x as { run_dir: string }).run_dir)] : []));
  const figure = r.data.eval_mean_return ? 'eval_mean_return' : r.data.eval_mean_reward_bps ? 'eval_mean_reward_bps' : undefined;
  const stats = figure && r.data[figure];
  const ci = stats?.mean_ci95 ? { ci95: stats.mean_ci95, interval: 'mean-t' as const } : stats?.iqm_ci95 ? { ci95: stats.iqm_ci95, interval: 'iqm-bootstrap' as const } : undefined;
  return { runNames, seeds: r.data.seeds ?? [], ...(figure && stats && ci ? { headline: { figure, n: stats.n, mean: stats.mean, ...ci } } : {}) };
}

/** The seeds summaries of one runs folder, kept between listings while their files are unchanged. */
export class SeedSummaries {
  private readonly kept = new Map<string, { stamp: string; summary: SeedSummary | undefined }>();

  /**
   * The summaries among the folder entries `names` of `runsDir`, by group name (the file's name
   * without `.json`). The event loop runs between files; a file that is not a valid summary is
   * left out, and entries gone since the last call are forgotten.
   */
  async read(runsDir: string, names: readonly string[]): Promise<Map<string, SeedSummary>> {
    const out = new Map<string, SeedSummary>();
    const seen = new Set<string>();
    for (const file of names) {
      const group = file.endsWith(SUMMARY_SUFFIX) ? file.slice(0, -'.json'.length) : undefined;
      if (!group || !GroupNameSchema.safeParse(group).success) continue;
      const path = join(runsDir, file);
      seen.add(path);
      let stamp: string;
      try {
        const st = await lstat(path);
        stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
      } catch {
        continue; // gone meanwhile
      }
      let entry = this.kept.get(path);
      if (entry?.stamp !== stamp) {
        await nextTurn();
        this.kept.set(path, (entry = { stamp, summary: readSummary(path) }));
      }
      if (entry.summary) out.set(group, entry.summary);
    }
    for (const path of this.kept.keys()) if (path.startsWith(join(runsDir, '/')) && !seen.has(path)) this.kept.delete(path);
    return out;
  }
}

/** A summary file's content, or undefined when it is a link, not a regular file, too large or not a summary. */
function readSummary(path: string): SeedSummary | undefined {
  try {
    const text = readRegularText(path, MAX_SUMMARY_BYTES);
    return text === undefined ? undefined : parseSummary(text);
  } catch {
    return undefined;
  }
}

/** A run of the listing as the grouping sees it. */
export interface GroupedRun {
  name: string;
  state: MemberState;
  marker?: GroupMarker;
}

/**
 * Each run's group and the groups listed: a run belongs to the group its marker names, else to
 * the group whose summary names its folder; a group is listed when at least one member is there.
 * A group's seeds come from a member's marker (the plan, written when it started), else from its
 * summary; its members are those present (a deleted member is simply not among them).
 * @returns run folder name -> group name, and the groups, newest first.
 */
export function assignGroups(runs: readonly GroupedRun[], summaries: ReadonlyMap<string, SeedSummary>): { groupOf: Map<string, string>; groups: GroupListing[] } {
  const bySummary = new Map<string, string>();
  for (const [group, s] of summaries) for (const n of s.runNames) bySummary.set(n, group);
  const groupOf = new Map<string, string>();
  const members = new Map<string, GroupedRun[]>();
  for (const r of runs) {
    const group = r.marker?.group ?? bySummary.get(r.name);
    if (group === undefined) continue;
    groupOf.set(r.name, group);
    members.set(group, [...(members.get(group) ?? []), r]);
  }
  const groups = [...members].map(([name, ms]): GroupListing => {
    const summary = summaries.get(name);
    const seeds = ms.find((m) => m.marker)?.marker?.seeds ?? summary?.seeds ?? [];
    return { name, seeds, summarized: summary !== undefined, ...(summary?.headline ? { headline: summary.headline } : {}), state: groupState(ms.map((m) => m.state), seeds.length, summary !== undefined) };
  });
  return { groupOf, groups: groups.sort((a, b) => b.name.localeCompare(a.name)) };
}
