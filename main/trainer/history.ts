// The live run's history as sent to a renderer that connects mid-run: the records of the run's
// metrics file followed by those the session reported since its last flush, bounded so that a
// days-long run does not turn one reconnect into hundreds of megabytes of JSON.
import type { WireValue } from '../../common/protocol.ts';
import type { ScalarPoint } from '../../common/run.ts';

/** Most scalar points (and, separately, episodes) one history message carries. */
export const HISTORY_MAX_POINTS = 1 << 15;

/** A bounded point list and the first step that was not merged (absent when none was). */
export interface Bounded {
  points: ScalarPoint[];
  compactedBelow?: number;
}

/**
 * Bounds `points` (ascending steps) to at most `max` entries (max >= 6). When there are more, the
 * newest floor(max / 2) stay as they are and the older ones are merged per run of k consecutive
 * points (k as small as fits the budget, DESIGN section 8: deterministic buckets that keep
 * spikes) into three points: per scalar name the bucket's minimum at the bucket's first step,
 * its maximum at its middle step and its last value at its last step. Non-finite values
 * ("NaN", "Infinity", "-Infinity" on the wire) are never merged away: a bucket holding one for a
 * name carries it in the maximum's place, so the dashboard still draws its marker.
 * Returns the input array itself when it already fits.
 */
export function boundPoints(points: ScalarPoint[], max = HISTORY_MAX_POINTS): Bounded {
  if (max < 6) throw new RangeError(`max must be at least 6, got ${max}`);
  if (points.length <= max) return { points };
  const keep = Math.floor(max / 2);
  const older = points.length - keep;
  const k = Math.ceil(older / Math.floor((max - keep) / 3));
  const out: ScalarPoint[] = [];
  for (let i = 0; i < older; i += k) out.push(...mergeBucket(points.slice(i, Math.min(i + k, older))));
  const rest = points.slice(older);
  return { points: out.concat(rest), compactedBelow: rest[0]!.step };
}

function mergeBucket(bucket: ScalarPoint[]): ScalarPoint[] {
  if (bucket.length < 3) return bucket;
  const lo: Record<string, WireValue> = {};
  const hi: Record<string, WireValue> = {};
  const last: Record<string, WireValue> = {};
  for (const p of bucket) {
    for (const [name, v] of Object.entries(p.values)) {
      last[name] = v;
      const h = hi[name];
      if (typeof v !== 'number') {
        if (typeof h !== 'string') hi[name] = v; // the first non-finite value of the bucket
        continue;
      }
      const l = lo[name];
      if (typeof l !== 'number' || v < l) lo[name] = v;
      if (h === undefined || (typeof h === 'number' && v > h)) hi[name] = v;
    }
  }
  const first = bucket[0]!;
  const mid = bucket[bucket.length >> 1]!;
  const end = bucket.at(-1)!;
  return [
    { step: first.step, wall_s: first.wall_s, values: lo },
    { step: mid.step, wall_s: mid.wall_s, values: hi },
    { step: end.step, wall_s: end.wall_s, values: last },
  ];
}
