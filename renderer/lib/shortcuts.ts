// The dashboard's keyboard shortcuts, in one table: the key handler (App) matches key presses
// against it and the shortcut overlay (`?`) lists it, so the two never disagree.

export type ShortcutAction = 'start' | 'stop' | 'focusConfig' | 'shortcuts';

export interface Shortcut {
  action: ShortcutAction;
  /** The keys as people read them ("Ctrl+Enter"; ⌘ stands for Ctrl on macOS). */
  keys: string;
  /** What the shortcut does. */
  description: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { action: 'start', keys: 'Ctrl+Enter', description: 'Start a run with the config on the left' },
  { action: 'stop', keys: 'Ctrl+.', description: 'Stop the run (a checkpoint is kept)' },
  { action: 'focusConfig', keys: 'Ctrl+,', description: 'Focus the first config field' },
  { action: 'shortcuts', keys: '?', description: 'Show or hide this list of shortcuts' },
];

/** What the overlay also lists: keys that work without a shortcut of ours (the browser's and the dialogs'). */
export const OTHER_KEYS: readonly { keys: string; description: string }[] = [
  { keys: 'Esc', description: 'Close this list, the hyperparameter table or a prompt' },
  { keys: 'drag on a chart', description: 'Zoom into the x range dragged over; "Follow latest" undoes it' },
];

/** A key press as the matcher needs it (a KeyboardEvent fits), and whether it was typed into a text field. */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/**
 * The action of a key press, or undefined. Ctrl (or ⌘) with Enter, "." or ","; "?" alone, and
 * only outside text fields (where it is a character someone types).
 */
export function shortcutFor(e: KeyPress, inTextField: boolean): ShortcutAction | undefined {
  if (e.altKey) return undefined;
  if (e.ctrlKey || e.metaKey) return e.key === 'Enter' ? 'start' : e.key === '.' ? 'stop' : e.key === ',' ? 'focusConfig' : undefined;
  return e.key === '?' && !inTextField ? 'shortcuts' : undefined;
}

/** Whether `el` takes typed text (an input other than a checkbox, radio, range or button; a textarea; a select; editable content). */
export function takesText(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName.toLowerCase();
  if (tag === 'input') return !['checkbox', 'radio', 'range', 'button', 'submit', 'reset', 'color', 'file'].includes((el as HTMLInputElement).type);
  return tag === 'textarea' || tag === 'select' || (el as HTMLElement).isContentEditable === true;
}
