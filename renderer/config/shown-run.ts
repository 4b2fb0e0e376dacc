// Which run's config the config panel shows (issue 16, item 4): the run the charts show, read-only.
import type { RunConfig } from '../../common/config.ts';
import type { DashboardState } from '../store.ts';

/** A run's config as the panel shows it: `key` tells runs apart, `name` is its folder's name. */
export interface ShownRun {
  key: string;
  name: string;
  config: RunConfig;
  reason: string;
}

/** The run whose config the panel shows instead of the draft: the opened past run, else the live one while it runs. */
export function shownRunConfig(view: DashboardState['view'], liveRunDir: string | undefined, liveConfig: RunConfig | undefined): ShownRun | undefined {
  const name = (dir: string) => dir.split(/[\\/]/).pop() ?? dir;
  if (view.kind === 'history') return { key: `history:${view.runDir}`, name: name(view.runDir), config: view.config, reason: `Config of the past run ${name(view.runDir)}, read-only.` };
  if (view.kind === 'group') return { key: `group:${view.group}`, name: view.group, config: view.config, reason: `Config of the seed group ${view.group} (its first member; the members differ in seed and name), read-only.` };
  if (liveRunDir && liveConfig) return { key: `live:${liveRunDir}`, name: name(liveRunDir), config: liveConfig, reason: `Config of the live run ${name(liveRunDir)}, read-only while it runs.` };
  return undefined;
}

