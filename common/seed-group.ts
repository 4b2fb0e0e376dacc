// Seed groups (issue 27 item 4): the runs of one `npm run train -- --seeds N` are one group with
// N members. A group is named by its summary file without `.json`
// (`<yyyymmdd-hhmmss>-<name>-seeds`, main/cli/seeds.ts), fixed when the group starts; each
// member's run folder holds a `group.json` marker written when the folder is created, so a group
// is recognisable while it trains, before the summary exists. This module holds the marker's
// format, what the run history lists of a group, and the group's state. Pure TS + zod.
import { z } from 'zod';

/** Name of the marker file in each member's run folder. */
export const GROUP_MARKER_FILE = 'group.json';
/** Most members a group has (main/cli/seeds.ts MAX_SEEDS). */
export const MAX_GROUP_MEMBERS = 100;
/** A group's name: the plain name of its summary file without `.json`. */
export const GroupNameSchema = z
  .string()
  .min(1)
  .max(160)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*-seeds$/, 'a group name is <stamp>-<name>-seeds: letters, digits, ".", "_" and "-"');

/** A training seed (config.seed's range). */
const SeedSchema = z.number().int().nonnegative().max(2 ** 31 - 1);

/**
 * `group.json` in a member's run folder: the group it belongs to, its own seed and the seeds of
 * every member (in training order), so the listing knows how many members to expect.
 */
export const GroupMarkerSchema = z.object({
  kind: z.literal('seed-group'),
  version: z.literal(1),
  group: GroupNameSchema,
  seed: SeedSchema,
  seeds: z.array(SeedSchema).min(1).max(MAX_GROUP_MEMBERS),
});
export type GroupMarker = z.infer<typeof GroupMarkerSchema>;

/** The summary file's headline figure: the final evaluation return's spread over the members (common/seed-stats.ts). */
export const GroupHeadlineSchema = z.object({
  /** The summary's field it came from: `eval_mean_return` (CartPole) or `eval_mean_reward_bps` (trading, bps of equity). */
  figure: z.enum(['eval_mean_return', 'eval_mean_reward_bps']),
  n: z.number().int().positive(),
  mean: z.number(),
  /** The summary's 95% interval: of the mean (Student-t, `mean_ci95`), or in summaries written before it of the IQM (percentile bootstrap, `iqm_ci95`). */
  ci95: z.tuple([z.number(), z.number()]),
  interval: z.enum(['mean-t', 'iqm-bootstrap']),
});
export type GroupHeadline = z.infer<typeof GroupHeadlineSchema>;

/** A seed group as the run history lists it; its members are the runs whose `seedGroup` is `name`. */
export const GroupListingSchema = z.object({
  name: GroupNameSchema,
  /** Seeds the group trains (from a member's marker, or the summary's list); members may be fewer (not started, deleted, stopped). */
  seeds: z.array(SeedSchema).max(MAX_GROUP_MEMBERS),
  /** Whether `<runsDir>/<name>.json` (the summary over seeds) exists: the group's CLI finished. */
  summarized: z.boolean(),
  headline: GroupHeadlineSchema.optional(),
  /** The group's state from its members' (groupState). */
  state: z.enum(['finished', 'stopped', 'halted', 'incomplete', 'live']),
});
export type GroupListing = z.infer<typeof GroupListingSchema>;

/** How a member run stands (RunSummary.state). */
export type MemberState = GroupListing['state'];

/**
 * A group's state from its members' states: live while any member is live; else halted or
 * stopped when any member is (halted first); else incomplete when a member is, or when fewer
 * members than seeds are there and no summary was written (its process died between members);
 * else finished.
 */
export function groupState(members: readonly (MemberState | undefined)[], seeds: number, summarized: boolean): MemberState {
  for (const s of ['live', 'halted', 'stopped', 'incomplete'] as const) if (members.includes(s)) return s;
  if (members.includes(undefined) || (members.length < seeds && !summarized)) return 'incomplete';
  return 'finished';
}
