// A seed group in the run history (issue 27 item 4): one row with the group's name (it opens the
// group: the members' mean with a band on every chart), its members against its seeds, and on the
// line under it when it started, its state, env and its summary's headline figure, like a run's row in the narrow
// run table (issue 26 item 9); it expands to the members' own rows.
import { Fragment, useState, type ReactNode } from 'react';
import type { RunSummary } from '../../common/protocol.ts';
import type { GroupListing } from '../../common/seed-group.ts';
import { groupHeadlineText, groupMembersText } from '../lib/run-groups.ts';
import { createdText, runTitle, TABLE_COLUMNS } from '../lib/run-table.ts';

/** The group row of `name` (its listing, when the host sent one; marked while the charts show it: `current`) and, expanded, its members' rows drawn by `row`. */
export function GroupRow({ name, listing, members, row, onOpen, current = false }: { name: string; listing: GroupListing | undefined; members: RunSummary[]; row: (r: RunSummary) => ReactNode; onOpen: () => void; current?: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const headline = listing?.headline;
  return (
    <Fragment>
      <tr className="run-group" data-group={name} aria-current={current ? 'true' : undefined}>
        <td className="tick">
          <button type="button" className="expand" aria-expanded={expanded} aria-label={`Members of ${name}`} title={expanded ? 'Hide the members' : 'Show the members'} onClick={() => setExpanded(!expanded)}>
            {expanded ? '▾' : '▸'}
          </button>
        </td>
        <td className="run-cell" colSpan={TABLE_COLUMNS.length}>
          <span className="run-title" data-col="name">
            <button type="button" className="run-name" aria-label={`Open group ${name}`} title={`${name}: every chart as the members' mean with a band; members on demand`} onClick={onOpen}>
              {runTitle(name)}
            </button>
            <span className="muted"> · {groupMembersText(members.length, listing?.seeds.length ?? 0)}</span>
          </span>
          <span className="run-meta">
            {members.length > 0 && <span title="started">{createdText(Math.min(...members.map((m) => m.createdMs)))}</span>}
            <span data-col="state">{listing?.state ?? '–'}</span>
            <span data-col="env">{members[0]?.env ?? '–'}</span>
            <span title={headline ? `${headline.figure} over ${headline.n} seeds: the mean, and the ${headline.interval === 'mean-t' ? '95% Student-t interval of the mean' : '95% bootstrap interval of the interquartile mean'} (the summary file ${name}.json)` : 'no summary over the seeds yet'}>
              eval return <span data-col="lastEvalReturn">{groupHeadlineText(headline)}</span>
            </span>
          </span>
        </td>
        <td className="row-actions" />
      </tr>
      {expanded && members.map(row)}
    </Fragment>
  );
}
