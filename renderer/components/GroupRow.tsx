// A seed group in the run history (issue 27 item 4): one row with the group's name, its members
// against its seeds, its state and its summary's headline figure, that expands to the members'
// own rows; "Open group" draws the members' mean with a band on every chart.
import { Fragment, useState, type ReactNode } from 'react';
import type { RunSummary } from '../../common/protocol.ts';
import type { GroupListing } from '../../common/seed-group.ts';
import { groupHeadlineText, groupMembersText } from '../lib/run-groups.ts';
import { RUN_COLUMNS } from '../lib/run-table.ts';

/** The group row of `name` (its listing, when the host sent one) and, expanded, its members' rows drawn by `row`. */
export function GroupRow({ name, listing, members, row, onOpen }: { name: string; listing: GroupListing | undefined; members: RunSummary[]; row: (r: RunSummary) => ReactNode; onOpen: () => void }) {
  const [expanded, setExpanded] = useState(false);
  const cell = (key: (typeof RUN_COLUMNS)[number]['key']): ReactNode => {
    if (key === 'name')
      return (
        <>
          <button type="button" className="expand" aria-expanded={expanded} aria-label={`Members of ${name}`} onClick={() => setExpanded(!expanded)}>
            {expanded ? '▾' : '▸'}
          </button>{' '}
          {name} <span className="muted">· {groupMembersText(members.length, listing?.seeds.length ?? 0)}</span>
        </>
      );
    if (key === 'env') return members[0]?.env ?? '–';
    if (key === 'state') return listing?.state ?? '–';
    if (key === 'lastEvalReturn') return groupHeadlineText(listing?.headline);
    return '';
  };
  return (
    <Fragment>
      <tr className="run-group" data-group={name}>
        {RUN_COLUMNS.map((c) => (
          <td key={c.key} data-col={c.key} title={c.key === 'lastEvalReturn' && listing?.headline ? `${listing.headline.figure} over ${listing.headline.n} seeds: mean, and the 95% bootstrap interval of the interquartile mean (the summary file ${name}.json)` : undefined}>
            {cell(c.key)}
          </td>
        ))}
        <td className="actions">
          <button type="button" aria-label={`Open group ${name}`} title="Every chart as the members' mean with a band; members on demand" onClick={onOpen}>
            Open group
          </button>
        </td>
      </tr>
      {expanded && members.map(row)}
    </Fragment>
  );
}
