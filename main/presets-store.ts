// Config presets as the dashboard sees them: the bundled ones (resources/presets/*.json, read
// only) and the user's own (<user data>/presets/*.json, written atomically). Used by Electron
// main (behind ipcMain.handle) and by the browser-mode server (behind the WebSocket); imports
// no electron.
import type { RunConfigInput } from '../common/config.ts';
import { issuesText, parseMessage, PresetRequestSchema, type Preset } from '../common/protocol.ts';
import { writeFileAtomic } from './trainer/atomic-file.ts';
import { makeFolder } from './trainer/folders.ts';
import { resolveInsideFolder } from './trainer/paths-policy.ts';
import { listPresets, loadPreset, PRESETS_DIR } from './trainer/presets.ts';

/**
 * Most user presets kept: a save of a new one past it is refused, and a folder filled by hand
 * lists its first MAX_USER_PRESETS by name (each list reads every listed file: at 2,000 presets,
 * 20 list requests held serve for 3.2 s, issue 26 item 7).
 */
export const MAX_USER_PRESETS = 200;

/**
 * Lists, reads and saves presets: bundled ones are read-only, the user's are written atomically
 * under `<userData>/presets/`, at most MAX_USER_PRESETS of them, each at most MAX_PRESET_BYTES.
 * Names are checked by PresetRequestSchema; a bad name, an invalid config or a full folder throws
 * an Error that says which.
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

  /**
   * Bundled presets first, then the user's (the first MAX_USER_PRESETS), each sorted by name. A
   * user preset may shadow a bundled one. Files that cannot be read are skipped, saying why in
   * the log.
   */
  list(): Preset[] {
    const read = (dir: string, source: Preset['source'], names: string[]): Preset[] =>
      names.flatMap((name) => {
        try {
          return [{ name, source, config: loadPreset(name, dir) }];
        } catch (e) {
          console.error(`preset ${name} in ${dir} skipped: ${(e as Error).message}`);
          return [];
        }
      });
    const user = listPresets(this.userDir);
    if (user.length > MAX_USER_PRESETS) console.error(`${user.length - MAX_USER_PRESETS} presets in ${this.userDir} not listed: at most ${MAX_USER_PRESETS} are (from '${user[MAX_USER_PRESETS]}' on, by name)`);
    return [...read(this.bundledDir, 'bundled', listPresets(this.bundledDir)), ...read(this.userDir, 'user', user.slice(0, MAX_USER_PRESETS))];
  }

  /**
   * Saves `config` as the user preset `name` (atomic: a crash leaves the old file or the new one).
   * @throws Error when the name or the config is invalid, when `name` is new and the folder holds
   *   MAX_USER_PRESETS already, or when the file cannot be written.
   */
  save(name: string, config: RunConfigInput): Preset[] {
    const input = { op: 'save', name, config };
    const req = PresetRequestSchema.safeParse(input);
    if (!req.success) throw new Error(`cannot save preset '${name.slice(0, 80)}': ${issuesText(req.error, input)}`);
    const user = listPresets(this.userDir);
    if (user.length >= MAX_USER_PRESETS && !user.includes(name))
      throw new Error(`cannot save preset '${name}': ${this.userDir} holds ${user.length} presets, the most kept is ${MAX_USER_PRESETS}; delete some there or save over one`);
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
