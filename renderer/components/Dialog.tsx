// A modal dialog on the browser's <dialog> element: focus moves into it, Esc closes it, the page
// behind is inert while it is open, and it is named by its heading.
import { useEffect, useRef, type ReactNode } from 'react';

/** A modal dialog shown while `open`; `onClose` runs when the user closes it (Esc, the Close button). */
export function Dialog({ open, onClose, title, className, children }: { open: boolean; onClose: () => void; title: string; className?: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = `dialog-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className={`dialog ${className ?? ''}`} aria-labelledby={id} onClose={onClose}>
      {open && (
        <>
          <div className="dialog-head">
            <h2 id={id}>{title}</h2>
            <button type="button" onClick={onClose} aria-label={`Close ${title.toLowerCase()}`}>
              Close
            </button>
          </div>
          {children}
        </>
      )}
    </dialog>
  );
}
