// Every scalar a run logged, for the "All scalars" panel (TensorBoard's scalars dashboard): the
// series names grouped by their prefix (the part before the first "/": losses, q, replay,
// charts, eval, epoch, system, heads, causal), filtered by words typed.
import { C51_DIST_PREFIX } from '../../common/run.ts';

export interface ScalarGroup {
  /** The names' common prefix ("losses"); "" for names without a "/". */
  prefix: string;
  names: string[];
}

/**
 * The series `names` holding every word of `filter` (case-insensitive), grouped by prefix in the
 * order their first name appears; the C51 distribution's atoms (one series per atom, drawn by
 * their own chart) are not scalars over time and are left out.
 */
export function scalarGroups(names: readonly string[], filter: string): ScalarGroup[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const groups = new Map<string, string[]>();
  for (const name of names) {
    if (name.startsWith(C51_DIST_PREFIX) || !words.every((w) => name.toLowerCase().includes(w))) continue;
    const slash = name.indexOf('/');
    const prefix = slash < 0 ? '' : name.slice(0, slash);
    let group = groups.get(prefix);
    if (!group) groups.set(prefix, (group = []));
    group.push(name);
  }
  return [...groups].map(([prefix, names]) => ({ prefix, names }));
}
