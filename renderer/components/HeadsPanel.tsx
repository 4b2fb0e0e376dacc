// The Heads panel (issue 23 item 5): each reported part's loss, each part's gradient norm before
// and after its budget clip, sigma max of spectral normalisation, the ensemble's disagreement and
// the C51 greedy-action distribution, from the `heads/...` series the session streams for the
// parts a run enables (main/trainer/head-scalars.ts). Only the charts of enabled parts are drawn;
// a plain Q run has no panel.
import { useMemo } from 'react';
import { useStore } from 'zustand';
import type { HeadsConfig } from '../../common/config.ts';
import { enabledParts, isPlainQ, PART_FIELDS, reportedParts, type LossPart } from '../../common/heads.ts';
import { SCALAR_NAMES } from '../../common/run.ts';
import type { CsvRequest } from '../lib/csv-request.ts';
import type { RedrawScheduler } from '../lib/redraw.ts';
import type { Dashboard, DashboardState } from '../store.ts';
import { C51Chart } from './C51Chart.tsx';
import { SeriesChart, type ChartLine } from './SeriesChart.tsx';
import { SERIES_COLORS } from '../lib/palette.ts';

const MAIN_LOSSES: Record<HeadsConfig['main'], string> = { q: 'Q: Huber', c51: 'C51: cross-entropy', iqn: 'IQN: quantile Huber' };
const PART_NAMES: Record<LossPart, string> = { main: 'main head', iqn: 'auxiliary IQN', ensemble: 'ensemble', cql: 'CQL' };
const PART_LOSSES: Record<Exclude<LossPart, 'main'>, string> = { iqn: 'quantile Huber', ensemble: 'mean masked Huber', cql: 'alpha × logsumexp gap' };
const PART_COLORS: Record<LossPart, string> = { main: SERIES_COLORS.amber, iqn: SERIES_COLORS.violet, ensemble: SERIES_COLORS.green, cql: SERIES_COLORS.coral };

/** One line per reported part of `heads`: its loss, named with what the loss is. */
function lossLines(heads: HeadsConfig): ChartLine[] {
  return reportedParts(heads).map((part) => ({
    name: SCALAR_NAMES[PART_FIELDS[part].loss],
    label: `${PART_NAMES[part]} (${part === 'main' ? MAIN_LOSSES[heads.main] : PART_LOSSES[part]})`,
    color: PART_COLORS[part],
  }));
}

/** Each part's gradient norm before its budget clip and after it. */
const GRAD_LINES = Object.fromEntries(
  (Object.keys(PART_FIELDS) as LossPart[]).map((part) => [
    part,
    [
      { name: SCALAR_NAMES[PART_FIELDS[part].gradNorm], label: 'before its budget clip', color: PART_COLORS[part], smooth: false },
      { name: SCALAR_NAMES[PART_FIELDS[part].clipped], label: 'after its budget clip', color: SERIES_COLORS.blue, smooth: false },
    ],
  ]),
) as Record<LossPart, ChartLine[]>;

const SIGMA_LINES: ChartLine[] = [{ name: SCALAR_NAMES.sigma_max_seen, label: 'largest estimate before scaling', color: SERIES_COLORS.yellow, smooth: false }];
const DISAGREEMENT_LINES: ChartLine[] = [{ name: SCALAR_NAMES.ensemble_disagreement, label: 'mean over the batch of std_k Q_k(s, greedy a)', color: SERIES_COLORS.green }];

/** The heads of the run the charts show (the opened past run, else the live or last run), or undefined when it has no Heads panel (plain Q, or no run yet). */
export function shownHeads(st: Pick<DashboardState, 'view' | 'runConfig'>): HeadsConfig | undefined {
  const heads = (st.view.kind !== 'live' ? st.view.config : st.runConfig)?.heads;
  return heads && !isPlainQ(heads) ? heads : undefined;
}

interface PanelProps {
  dashboard: Dashboard;
  scheduler: RedrawScheduler;
  csv: CsvRequest;
}

/** The Heads panel of the dashboard's store: nothing for a plain Q run (see HeadsPanelView). */
export function HeadsPanel(props: PanelProps) {
  const heads = useStore(props.dashboard.store, shownHeads);
  return heads ? <HeadsPanelView {...props} heads={heads} /> : null;
}

/** The Heads panel of a run with `heads`: the losses, then per part its gradient norms, then sigma max, disagreement and the C51 distribution where enabled. */
export function HeadsPanelView({ dashboard, scheduler, csv, heads }: PanelProps & { heads: HeadsConfig }) {
  const on = enabledParts(heads);
  const losses = useMemo(() => lossLines(heads), [heads]);
  const chart = (title: string, lines: ChartLine[], yLabel: string) => (
    <SeriesChart key={title} dashboard={dashboard} scheduler={scheduler} csv={csv} title={title} lines={lines} xLabel="step" xKind="step" yLabel={yLabel} />
  );
  return (
    <section className="heads-panel" aria-label="Heads">
      <h2>Heads</h2>
      {chart('Head losses', losses, "each part's own loss")}
      {reportedParts(heads).map((part) => chart(`Gradient norm: ${PART_NAMES[part]}${part === 'main' ? ` (${heads.main.toUpperCase()})` : ''}`, GRAD_LINES[part], 'L2 norm'))}
      {on.spectral && chart('Spectral norm', SIGMA_LINES, 'sigma max')}
      {on.ensemble && chart('Ensemble disagreement', DISAGREEMENT_LINES, 'Q (return units)')}
      {heads.main === 'c51' && <C51Chart dashboard={dashboard} scheduler={scheduler} c51={heads.c51} />}
    </section>
  );
}
