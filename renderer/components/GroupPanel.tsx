// The controls of an opened seed group (issue 27 item 4), above its charts: what the charts draw
// (the members' mean per step), the band around each mean (min-max or the 95% t-interval of the
// mean) and the member picker that draws members over the charts.
import { useStore } from 'zustand';
import { GROUP_BAND_LABEL, type GroupBand } from '../group-view.ts';
import { ink } from '../lib/theme.ts';
import { useTheme } from '../lib/theme-store.ts';
import type { Dashboard } from '../store.ts';

/** The group's band control and member picker; nothing unless the charts show a seed group. */
export function GroupPanel({ dashboard }: { dashboard: Dashboard }) {
  const view = useStore(dashboard.store, (s) => s.view);
  const theme = useTheme();
  const group = dashboard.group();
  if (view.kind !== 'group' || !group) return null;
  return (
    <section className="group-panel" aria-label="Seed group">
      <p>
        Seed group <code>{group.name}</code>: each chart draws the mean of {group.members.length} {group.members.length === 1 ? 'member' : 'members'} per step{' '}
        <span className="muted" title="Members log at slightly different steps: at each step a member counts with its last value, between its first and last logged step">(values carried forward within each member's span)</span>, with a band.
      </p>
      <label>
        Band{' '}
        <select aria-label="Group band" value={view.band} onChange={(e) => dashboard.setGroupBand(e.target.value as GroupBand)}>
          {(Object.keys(GROUP_BAND_LABEL) as GroupBand[]).map((b) => (
            <option key={b} value={b}>
              {GROUP_BAND_LABEL[b]}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="group-members">
        <legend>Members drawn over the mean</legend>
        {group.members.map((m) => (
          <label key={m.runDir} title={m.runDir}>
            <input type="checkbox" checked={view.shownMembers.includes(m.runDir)} onChange={() => dashboard.toggleGroupMember(m.runDir)} />
            <span className="swatch" style={{ background: ink(theme, m.color) }} aria-hidden="true" /> {m.name}
          </label>
        ))}
      </fieldset>
    </section>
  );
}
