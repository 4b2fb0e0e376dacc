// Config presets as the dashboard sees them: the bundled ones (resources/presets/*.json, read
// only) and the user's own (<user data>/presets/*.json, written atomically). Used by Electron
// main (behind ipcMain.handle) and by the browser-mode server (behind the WebSocket); imports
// no electron.
import { existsSync } from 'node:fs';
import type { RunConfigInput } from '../common/config.ts';
import { issuesText, parseMessage, PresetRequestSchema, type Preset } from '../common/protocol.ts';
import { writeFileAtomic } from './trainer/atomic-file.ts';
import { makeFolder } from './trainer/folders.ts';
import { resolveInsideFolder } from './trainer/paths-policy.ts';
import { listPresets, loadPreset, PRESETS_DIR } from './trainer/presets.ts';

/**
 * Lists, reads and saves presets: bundled ones are read-only, the user's are written atomically
 * under `<userData>/presets/`. Names are checked by PresetRequestSchema; a bad name or an invalid
 * config throws an Error that says which.
 */
export class PresetStore {
  /**
   * @param userDir folder of the user's presets (created on first save)
   * @param bundledDir folder of the bundled presets
   */
  constructor(
    readonly userDir: string,
    readonly bundledDir = PRESETS_DIR,
  ) {}

  /** Bundled presets first, then the user's, each sorted by name. A user preset may shadow a bundled one. */
  list(): Preset[] {
    const read = (dir: string, source: Preset['source']): Preset[] =>
      listPresets(dir).flatMap((name) => {
        try {
          return [{ name, source, config: loadPreset(name, dir) }];
        } catch (e) {
          console.error(`preset ${name} in ${dir} skipped: ${(e as Error).message}`);
          return [];
        }
      });
    return [...read(this.bundledDir, 'bundled'), ...(existsSync(this.userDir) ? read(this.userDir, 'user') : [])];
  }

  /**
   * Saves `config` as the user preset `name` (atomic: a crash leaves the old file or the new one).
   * @throws Error when the name or the config is invalid, or the file cannot be written.
   */
  save(name: string, config: RunConfigInput): Preset[] {
    const req = PresetRequestSchema.safeParse({ op: 'save', name, config });
    if (!req.success) throw new Error(`cannot save preset '${name.slice(0, 80)}': ${issuesText(req.error)}`);
    makeFolder(this.userDir);
    writeFileAtomic(resolveInsideFolder(this.userDir, name, '.json', 'preset'), `${JSON.stringify(config, null, 2)}\n`);
    return this.list();
  }

  /** Answers one request of the presets channel. */
  handle(request: unknown): Preset[] {
    const req = parseMessage(PresetRequestSchema, request, 'the presets channel');
    return req.op === 'list' ? this.list() : this.save(req.name, req.config);
  }
}
