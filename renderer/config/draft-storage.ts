// The config editor's draft kept in the page origin's storage (issue 26 item 11), so a reload
// (or a crashed page the desktop app reloads) brings back the config being edited, and the preset
// it came from, instead of the defaults: Start then runs what the editor showed before.
import type { EditorState } from '../components/ConfigEditor.tsx';

/** The storage key (versioned: a later shape gets a new key, not a misread old one). */
export const DRAFT_KEY = 'dqn-console.config-draft.v1';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The editor state saved by saveDraft, or undefined when none was saved, the storage cannot be
 * read (a browser that refuses storage) or what it holds is not an editor state.
 */
export function loadDraft(storage: Pick<Storage, 'getItem'>): EditorState | undefined {
  let saved: unknown;
  try {
    saved = JSON.parse(storage.getItem(DRAFT_KEY) ?? 'null');
  } catch {
    return undefined;
  }
  if (!isRecord(saved) || !isRecord(saved.draft) || !isRecord(saved.base) || typeof saved.baseName !== 'string' || !isRecord(saved.texts)) return undefined;
  if (!Object.values(saved.texts).every((t) => typeof t === 'string')) return undefined;
  return { draft: saved.draft, base: saved.base, baseName: saved.baseName, texts: saved.texts as Record<string, string> };
}

/** Saves the editor state; a storage that refuses it (full, or disabled) leaves the page working without it. */
export function saveDraft(storage: Pick<Storage, 'setItem'>, editor: EditorState): void {
  try {
    storage.setItem(DRAFT_KEY, JSON.stringify(editor));
  } catch {
    /* the draft is then lost on reload, as before it was kept */
  }
}
