// The heads' scalars of one scalar-block read (issue 23 item 5): each reported part's loss and
// gradient norms, sigma max and, with fresh Q-stats, the ensemble's disagreement and the C51
// greedy-action distribution. Only the parts the run enables are put, so a plain Q run streams
// exactly what it streamed before heads existed.
import type { HeadsConfig } from '../../common/config.ts';
import { enabledParts, PART_FIELDS, reportedParts } from '../../common/heads.ts';
import { C51_DIST_PREFIX, SCALAR_NAMES } from '../../common/run.ts';
import type { Scalars } from '../../native/scalars.ts';

/**
 * Puts the heads' values of the read `s` through `put(name, value)`.
 * @param qFresh whether `s` holds Q-stats taken since the previous read (the probes that also
 *   fill ensemble_disagreement and c51_greedy_dist).
 */
export function putHeadScalars(s: Scalars, heads: HeadsConfig, qFresh: boolean, put: (name: string, v: number) => void): void {
  for (const part of reportedParts(heads)) for (const field of Object.values(PART_FIELDS[part])) put(SCALAR_NAMES[field], s[field]!);
  const on = enabledParts(heads);
  if (on.spectral) put(SCALAR_NAMES.sigma_max_seen, s.sigma_max_seen!);
  if (!qFresh) return;
  if (on.ensemble) put(SCALAR_NAMES.ensemble_disagreement, s.ensemble_disagreement!);
  if (heads.main === 'c51') s.c51_greedy_dist.forEach((p, j) => put(`${C51_DIST_PREFIX}${j}`, p));
}
