// Why Start is off (issue 26 item 11), said next to the button and by Ctrl+Enter: a greyed-out
// Start with no reason reads as a broken console.
import type { ConnectionState } from '../transport/transport.ts';

/** What keeps Start off: the words shown beside it, and the config field to go to (an invalid one). */
export interface StartBlocker {
  text: string;
  field?: string;
}

/**
 * Why a run cannot be started now, or undefined when it can: a live run or one starting (`busy`
 * 'starting': sent, not yet answered by the host), no connection to the
 * trainer host, or invalid fields of the draft config (`problems`, by field path; '' for the
 * config as a whole), the first one named with its problem.
 */
export function startBlocker(problems: ReadonlyMap<string, string>, connection: ConnectionState, busy: boolean | 'starting'): StartBlocker | undefined {
  if (busy === 'starting') return { text: 'a run is starting: the trainer host loads its data and builds it' };
  if (busy) return { text: 'a run is live: stop it to start another' };
  if (connection !== 'open') return { text: `not connected to the trainer host (${connection})` };
  const first = [...problems][0];
  if (!first) return undefined;
  const [field, problem] = first;
  const more = problems.size > 1 ? ` (and ${problems.size - 1} more invalid field${problems.size > 2 ? 's' : ''})` : '';
  return { text: `fix ${field || 'the config'} to start: ${problem}${more}`, ...(field ? { field } : {}) };
}
