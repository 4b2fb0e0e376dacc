// The config editor's memory line: what the draft config would allocate (common/memory-estimate.ts),
// shown as the user types, so a buffer too large for the machine is seen before Start (the
// trainer host refuses it with the same numbers against the machine's free memory).
import { RunConfigSchema } from '../../common/config.ts';
import { estimateMemory, formatBytes } from '../../common/memory-estimate.ts';

/**
 * "about 1.21 GiB (replay 1.19 GiB, networks 1.3 MiB, batch 3.0 MiB)" for a valid draft;
 * undefined while the draft is invalid (its problems are shown instead).
 */
export function memoryEstimateText(draft: unknown): string | undefined {
  const parsed = RunConfigSchema.safeParse(draft);
  if (!parsed.success) return undefined;
  const e = estimateMemory(parsed.data);
  return `about ${formatBytes(e.totalBytes)} (replay ${formatBytes(e.replayBytes)}, networks ${formatBytes(e.networkBytes)}, batch ${formatBytes(e.batchBytes)})`;
}
