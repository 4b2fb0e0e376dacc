// The keyboard-shortcut overlay (`?`, or the header's "?" button): every shortcut of
// lib/shortcuts.ts with its keys, and the keys that work without one.
import { OTHER_KEYS, SHORTCUTS } from '../lib/shortcuts.ts';
import { Dialog } from './Dialog.tsx';

/** Lists the keyboard shortcuts while `open`. */
export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts" className="shortcuts">
      <table className="shortcut-list">
        <tbody>
          {[...SHORTCUTS, ...OTHER_KEYS].map((s) => (
            <tr key={s.keys}>
              <th scope="row">
                {s.keys.split('+').map((k, i) => (
                  <span key={k}>
                    {i > 0 && '+'}
                    <kbd>{k}</kbd>
                  </span>
                ))}
              </th>
              <td>{s.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">On macOS, ⌘ works where Ctrl is named.</p>
    </Dialog>
  );
}
