// Bounds the file reads each client connection of the trainer host may have in flight (issue 26
// item 1): a run's history, a past run's data and a CSV export read files of any size in chunks
// (the event loop runs between them), so a client that sends thousands of such requests would
// otherwise hold thousands of reads, and their memory, at once. Past the bound a request is
// refused at once with the reason.

/** Most reads (a run's history or data, a CSV export) one connection may have in flight. */
export const MAX_READS_PER_PORT = 4;

/** Counts the reads in flight per key (a connection); refuses past `max`. */
export class ReadGate<K> {
  private readonly inFlight = new Map<K, number>();

  constructor(private readonly max = MAX_READS_PER_PORT) {}

  /**
   * Starts `read` now (synchronously: what it takes as its snapshot is taken at this call) unless
   * `max` reads of `key` are in flight.
   * @throws RangeError (the promise rejects) naming the limit when they are; what `read` throws.
   */
  async run<T>(key: K, read: () => Promise<T>): Promise<T> {
    const n = this.inFlight.get(key) ?? 0;
    if (n >= this.max) throw new RangeError(`busy: ${this.max} reads for this connection are still being answered (history, run data, CSV exports); ask again once they are`);
    this.inFlight.set(key, n + 1);
    try {
      return await read();
    } finally {
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left > 0) this.inFlight.set(key, left);
      else this.inFlight.delete(key);
    }
  }
}
