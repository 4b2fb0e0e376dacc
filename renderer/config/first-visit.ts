// The config a first visit starts from. Start on a fresh page ran the built-in defaults (a 256 x
// 256 network, 100k steps, no target return: minutes on a CPU), while a new user wants the short
// CartPole run the bundled `cartpole` preset is (it stops at its target return); so a page with
// nothing of the user's yet loads that preset, which stays one pick away from any other.
import type { Preset, RunSummary } from '../../common/protocol.ts';

/** The preset a first visit loads into the editor. */
export const FIRST_VISIT_PRESET = { name: 'cartpole', source: 'bundled' } as const;

/**
 * The preset to load on a first visit, or undefined: the bundled cartpole preset when no draft was
 * kept from an earlier visit (`draftKept`), the run history is known (`runs`, undefined until
 * listed) and empty, and the preset list holds it; undefined otherwise.
 */
export function firstVisitPreset({ draftKept, runs, presets }: { draftKept: boolean; runs: readonly RunSummary[] | undefined; presets: readonly Preset[] }): Preset | undefined {
  if (draftKept || runs === undefined || runs.length > 0) return undefined;
  return presets.find((p) => p.name === FIRST_VISIT_PRESET.name && p.source === FIRST_VISIT_PRESET.source);
}
