// Saves a Blob made in the page as a file, through a temporary object URL and a link click (the
// browser's download; Electron's default save dialog).

/** Offers `blob` for download as `filename`. */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  // The click starts the download asynchronously: the URL must outlive this turn.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
