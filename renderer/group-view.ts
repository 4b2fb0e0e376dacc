// An opened seed group (issue 27 item 4): its members' series books, one book of the members'
// mean per aligned step (lib/group-aggregate.ts) that every chart draws in place of a run's, the
// band each chart draws around a mean (min-max or the 95% t-interval of the mean), and the
// members picked to be drawn over the charts.
import type { RunConfig } from '../common/config.ts';
import type { HostMessage } from '../common/protocol.ts';
import type { EpochSummary } from '../common/run.ts';
import { aggregateMembers } from './lib/group-aggregate.ts';
import type { ChartBand } from './lib/legend.ts';
import { recordsBook, SeriesBook, type Overlay } from './series-book.ts';

/** What a group's charts draw around each mean: the members' minimum and maximum, or the 95% t-interval of the mean. */
export type GroupBand = 'minmax' | 'ci95';

/** The band's words in legends and the band control. */
export const GROUP_BAND_LABEL: Record<GroupBand, string> = { minmax: 'min–max over seeds', ci95: '95% t-interval of the mean' };

/** Name of a band edge's series in the group's band book (GroupView.bandBook). */
export const groupBandSeries = (name: string, band: GroupBand, edge: 'lo' | 'hi') => `${name}#group-${band}-${edge}`;

/** A band around a group mean, with the book its edge series are in. */
export type GroupChartBand = ChartBand & { source: SeriesBook };

type GroupData = Extract<HostMessage, { type: 'groupData' }>;

/** A member of the opened group: an Overlay (its folder, config, book, colour) named by its seed, with its last epoch's summary. */
export interface GroupMember extends Overlay {
  seed: number;
  lastEpoch?: EpochSummary;
}

/** The opened group: members, the mean book, the chosen band and the members drawn over the charts. */
export class GroupView {
  readonly name: string;
  readonly members: GroupMember[];
  /** Means per aligned step, under the members' series names; its axis is the first member's. */
  readonly book: SeriesBook;
  /** The band edges around each mean (groupBandSeries), kept apart so that no chart lists them as series of the group. */
  readonly bandBook: SeriesBook;
  /** The members' shared config (the first member's: they differ in seed and name only). */
  readonly config: RunConfig;

  /** `colorOf` gives each member its run colour (the dashboard's RunPalette: apart from the overlaid runs' colours too). */
  constructor(m: GroupData, smoothing: number, maxPoints: number, colorOf: (runDir: string) => string) {
    this.name = m.group;
    this.members = [];
    for (const r of m.members)
      this.members.push({
        runDir: r.runDir,
        name: `seed ${r.config.seed}`,
        seed: r.config.seed,
        config: r.config,
        book: recordsBook({ ...r, system: [] }, smoothing, maxPoints),
        // Run colours (never a series colour), each member its own.
        color: colorOf(r.runDir),
        lastEpoch: r.epochs.at(-1),
      });
    this.config = m.members[0]!.config;
    this.book = new SeriesBook(smoothing, maxPoints);
    this.bandBook = new SeriesBook(smoothing, maxPoints);
    const first = m.members[0]!;
    for (const p of first.scalars) this.book.axis.addWall(p.step, p.wall_s);
    for (const e of first.epochs) this.book.axis.addEnv(e.step, e.env_steps);
    const names = new Set(this.members.flatMap((mb) => [...mb.book.series.keys()]));
    for (const name of names) {
      const g = aggregateMembers(this.members.flatMap((mb) => mb.book.get(name) ?? []));
      for (let j = 0; j < g.x.length; j++) {
        const x = g.x[j]!;
        this.book.push(name, x, g.mean[j]!);
        // Band edges only where they exist (finite mean; two members or more for the interval).
        if (!Number.isNaN(g.min[j]!)) {
          this.bandBook.push(groupBandSeries(name, 'minmax', 'lo'), x, g.min[j]!);
          this.bandBook.push(groupBandSeries(name, 'minmax', 'hi'), x, g.max[j]!);
        }
        if (!Number.isNaN(g.ciLo[j]!)) {
          this.bandBook.push(groupBandSeries(name, 'ci95', 'lo'), x, g.ciLo[j]!);
          this.bandBook.push(groupBandSeries(name, 'ci95', 'hi'), x, g.ciHi[j]!);
        }
      }
    }
  }

  /** The band of each of `lines` that has a mean, in the line's colour. */
  bands(lines: readonly { name: string; label: string; color: string }[], band: GroupBand): GroupChartBand[] {
    return lines.filter((l) => this.book.get(l.name)).map((l) => ({ lo: groupBandSeries(l.name, band, 'lo'), hi: groupBandSeries(l.name, band, 'hi'), color: l.color, label: `${l.label}: ${GROUP_BAND_LABEL[band]}`, source: this.bandBook }));
  }

  setSmoothing(weight: number): void {
    this.book.setSmoothing(weight);
    for (const m of this.members) m.book.setSmoothing(weight);
  }
}
