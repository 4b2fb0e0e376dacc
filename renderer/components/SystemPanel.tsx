// The system panel (issue 16 item 6): steps/s and env steps/s over the run, the trainer host's CPU
// use and resident memory, and the GPU's utilisation, memory, temperature and power from NVML.
// The trainer host samples them about once a second (main/trainer/system-stats.ts) into the
// SYSTEM_SERIES of the live frames; where NVML is absent the GPU charts are replaced by a note
// with the reason. Runs keep the samples in metrics.jsonl (`system` records), so a past run opened
// from the history draws the same charts from its runData; a run recorded before that says so.
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { SYSTEM_SERIES } from '../../common/protocol.ts';
import type { CsvRequest } from '../lib/csv-request.ts';
import type { RedrawScheduler } from '../lib/redraw.ts';
import type { Dashboard, DashboardState } from '../store.ts';
import { SeriesChart, type ChartLine } from './SeriesChart.tsx';
import { SERIES_COLORS } from '../lib/palette.ts';

/**
 * The two rates coincide where a gradient step takes one env step (train_every 1): env steps/s is
 * drawn dashed over steps/s in a colour far from its blue, so both show where they lie on each
 * other (one solid line over the other hid it; green dashes over blue read as one teal line).
 */
export const SYSTEM_RATE_LINES: ChartLine[] = [
  { name: SYSTEM_SERIES.stepsPerSec, label: 'steps/s', color: SERIES_COLORS.blue, smooth: false },
  { name: SYSTEM_SERIES.envStepsPerSec, label: 'env steps/s', color: SERIES_COLORS.orange, smooth: false, dash: '6 4' },
];
const CPU_LINES: ChartLine[] = [
  { name: SYSTEM_SERIES.processCpu, label: 'trainer host process (% of one core)', color: SERIES_COLORS.amber, smooth: false },
  { name: SYSTEM_SERIES.hostCpu, label: 'whole machine (% of all cores)', color: SERIES_COLORS.violet, smooth: false },
];
const RSS_LINES: ChartLine[] = [{ name: SYSTEM_SERIES.rssMiB, label: 'resident memory (MiB)', color: SERIES_COLORS.teal, smooth: false }];
const GPU_UTIL_LINES: ChartLine[] = [{ name: SYSTEM_SERIES.gpuUtil, label: 'GPU utilisation (%)', color: SERIES_COLORS.leaf, smooth: false }];
const GPU_MEM_LINES: ChartLine[] = [
  { name: SYSTEM_SERIES.gpuMemUsedMiB, label: 'used (MiB)', color: SERIES_COLORS.leaf, smooth: false },
  { name: SYSTEM_SERIES.gpuMemTotalMiB, label: 'total (MiB)', color: SERIES_COLORS.grey, smooth: false },
];
const GPU_TEMP_LINES: ChartLine[] = [{ name: SYSTEM_SERIES.gpuTemperature, label: 'temperature (°C)', color: SERIES_COLORS.coral, smooth: false }];
const GPU_POWER_LINES: ChartLine[] = [{ name: SYSTEM_SERIES.gpuPower, label: 'power (W)', color: SERIES_COLORS.orange, smooth: false }];

type NoteState = Pick<DashboardState, 'gpu' | 'view' | 'runState'>;

/**
 * The sentence shown in place of the whole panel, or undefined when its charts are shown: a past
 * run whose metrics.jsonl holds no system samples (a CLI run, a run shorter than the first sample, or one
 * recorded before runs kept them), or a seed group.
 */
export function systemNote(st: NoteState): string | undefined {
  if (st.view.kind === 'group') return "No system readings for a seed group: its charts are the members' mean; open a member for its steps/s, CPU, memory and GPU charts.";
  if (st.view.kind !== 'history' || (st.view.system?.samples ?? 0) > 0) return undefined;
  return "No system readings in this run's metrics.jsonl: the dashboard samples steps/s, CPU, memory and GPU about once a second while it trains a run; runs trained by the CLI (npm run train, npm run sweep), runs that ended before their first sample, and runs recorded before runs kept them have none.";
}

/** The sentence shown in place of the GPU charts, and a title with more where there is more to say. */
export interface GpuNote {
  text: string;
  title?: string;
}

/**
 * Whether NVML's `reason` says its library could not be loaded, which is what a machine without
 * the NVIDIA driver gives (the addon's words: native/src/addon/nvml_binding.cpp, "NVML not found
 * (<dlerror>): ..."); its other reasons come from a driver that is there but fails.
 */
export const nvmlDriverMissing = (reason: string) => reason.startsWith('NVML not found (');

/**
 * The sentence shown in place of the GPU charts, or undefined when they are shown. Without the
 * NVIDIA driver that is the normal state of a CPU-only machine, said plainly with NVML's reason
 * in the title; a driver that is there but fails keeps its reason in the sentence.
 */
export function gpuNote(st: NoteState): GpuNote | undefined {
  // A past run: the GPU status of its last system sample, not the live run's.
  const gpu = st.view.kind === 'history' ? st.view.system?.gpu : st.gpu;
  if (gpu?.available) return undefined;
  if (gpu && nvmlDriverMissing(gpu.reason)) return { text: 'No NVIDIA GPU driver on this machine: no GPU readings (training runs on the CPU)', title: gpu.reason };
  if (gpu) return { text: `GPU readings hidden: ${gpu.reason}` };
  if (st.view.kind === 'history') return { text: 'GPU readings hidden: this run kept no system readings.' };
  return { text: st.runState === 'running' ? 'GPU readings: waiting for the first system sample (about one a second).' : 'GPU readings appear while a run is live (NVML, loaded when the NVIDIA driver is present).' };
}

interface PanelProps {
  dashboard: Dashboard;
  scheduler: RedrawScheduler;
  csv: CsvRequest;
}

/** The system panel of the dashboard's store (see SystemPanelView). */
export function SystemPanel(props: PanelProps) {
  const st = useStore(props.dashboard.store, useShallow((s) => ({ gpu: s.gpu, view: s.view, runState: s.runState })));
  return <SystemPanelView {...props} note={gpuNote(st)} empty={systemNote(st)} />;
}

/**
 * The system panel: throughput, host CPU and memory charts, and either the GPU charts or `note`,
 * the sentence saying why they are hidden (gpuNote); or only `empty` when the run shown kept no
 * system readings (systemNote).
 */
export function SystemPanelView({ dashboard, scheduler, csv, note, empty }: PanelProps & { note: GpuNote | undefined; empty?: string | undefined }) {
  const chart = (title: string, lines: ChartLine[], yLabel: string) => (
    <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title={title} lines={lines} xLabel="step" xKind="step" yLabel={yLabel} />
  );
  if (empty)
    return (
      <section className="system-panel" aria-label="System">
        <h2>System</h2>
        <p className="system-gpu-note system-empty-note" role="note">
          {empty}
        </p>
      </section>
    );
  return (
    <section className="system-panel" aria-label="System">
      <h2>System</h2>
      {chart('Throughput', SYSTEM_RATE_LINES, 'per second')}
      {chart('Host CPU', CPU_LINES, 'percent')}
      {chart('Host memory', RSS_LINES, 'MiB')}
      {note ? (
        <p className="system-gpu-note" role="note" title={note.title}>
          {note.text}
        </p>
      ) : (
        <>
          {chart('GPU utilisation', GPU_UTIL_LINES, 'percent')}
          {chart('GPU memory', GPU_MEM_LINES, 'MiB')}
          {chart('GPU temperature', GPU_TEMP_LINES, '°C')}
          {chart('GPU power', GPU_POWER_LINES, 'W')}
        </>
      )}
    </section>
  );
}
