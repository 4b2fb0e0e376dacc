// Which compute backend a run trains on, and why not the GPU (DESIGN section 5; issue 23 item 6):
// the one place that decides. The GPU needs a usable device and a learner for the run's heads;
// the CUDA learner trains only the plain Q head so far (HeadsConfig::plain_q()).
import type { HeadsConfig, RunConfig } from '../../common/config.ts';
import { enabledParts } from '../../common/heads.ts';

/** What the addon says about the GPU (NativeAddon.backendInfo()). */
export interface DeviceProbe {
  cudaAvailable: boolean;
  /** Why the GPU is not usable ('' when it is). */
  reason: string;
}

/** The backend chosen, and why it is not CUDA ('' when the CPU was asked for or CUDA is used). */
export interface BackendChoice {
  backend: 'cpu' | 'cuda';
  reason: string;
}

/** "a", "a or b", "a, b or c". */
function orList(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/**
 * What of `heads` the GPU learner cannot train yet, in words with the settings that ask for it
 * ("the GPU learner has no C51 head or CQL yet (heads.main = c51, heads.cql.alpha = 0.1)"), or ''
 * when the heads are the plain Q head it trains.
 */
export function cudaHeadsGap(h: HeadsConfig): string {
  const on = enabledParts(h);
  const missing: [what: string, setting: string][] = [];
  if (h.main !== 'q') missing.push([h.main === 'c51' ? 'C51 head' : 'IQN head', `heads.main = ${h.main}`]);
  if (on.iqn) missing.push(['auxiliary IQN head', 'heads.iqn.auxiliary = true']);
  if (on.ensemble) missing.push(['ensemble', `heads.ensemble.heads = ${h.ensemble.heads}`]);
  if (on.cql) missing.push(['CQL', `heads.cql.alpha = ${h.cql.alpha}`]);
  if (on.spectral) missing.push(['spectral normalisation', `heads.spectral.sigma_max = ${h.spectral.sigma_max}`]);
  if (!missing.length) return '';
  return `the GPU learner has no ${orList(missing.map(([what]) => what))} yet (${missing.map(([, setting]) => setting).join(', ')})`;
}

/**
 * The compute backend for a run that asked for `requested`. `auto` trains on the GPU when the
 * device is usable and the GPU learner has the run's heads, else on the CPU with the reason; the
 * heads' reason comes first (it holds on any machine), then the device's, both when both apply.
 * `probe` is called only when the GPU is considered (not for `cpu`).
 * @throws Error "backend 'cuda' was asked for, but <reasons>: use backend 'auto' or 'cpu' ..."
 *         when `cuda` was asked for explicitly and the GPU cannot train this run.
 */
export function chooseBackend(requested: RunConfig['backend'], heads: HeadsConfig, probe: () => DeviceProbe): BackendChoice {
  if (requested === 'cpu') return { backend: 'cpu', reason: '' };
  const device = probe();
  const reason = [cudaHeadsGap(heads), device.cudaAvailable ? '' : device.reason].filter(Boolean).join('; ');
  if (!reason) return { backend: 'cuda', reason: '' };
  if (requested === 'cuda') throw new Error(`backend 'cuda' was asked for, but ${reason}: use backend 'auto' or 'cpu' to train on the CPU`);
  return { backend: 'cpu', reason };
}
