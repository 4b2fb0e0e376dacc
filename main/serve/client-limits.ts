// What one browser-mode client may cost the server (issue 26 items 1 and 7): how many WebSocket
// connections are held at once, how many messages a connection may send (every one is forwarded
// to the trainer host or answered from disk), and how much may wait to be sent to a client that
// does not read. Past a limit the client is refused or closed with the reason; the server and
// the other clients go on.

/** Most WebSocket connections held at once (a dashboard is one per browser tab); one more is refused with 503. */
export const MAX_CONNECTIONS = 16;

/** Messages a connection may send at once; past the burst, MESSAGES_PER_SECOND refill it. */
export const MESSAGE_BURST = 100;

/** Messages a connection may send per second after its burst (a dashboard sends a few: pings every 200 ms at most). */
export const MESSAGES_PER_SECOND = 20;

/**
 * Bytes that may wait to be sent to one connection (sent but not yet taken by the client) before
 * another message is queued; past it the connection is closed. One message may be larger (a CSV
 * export of up to 2,000,000 rows is about 60 MB), so a connection holds at most this plus one.
 */
export const MAX_BACKLOG_BYTES = 32 * 1024 * 1024;

/** WebSocket close code for a client that broke a limit (RFC 6455: policy violation). */
export const POLICY_VIOLATION = 1008;

/** The reason a flooding connection is closed with (at most 123 bytes, as close reasons must be). */
export const FLOOD_REASON = `too many messages: at most ${MESSAGE_BURST} at once and ${MESSAGES_PER_SECOND} a second`;

/**
 * A token bucket over one connection's messages: MESSAGE_BURST tokens, refilled at
 * MESSAGES_PER_SECOND; each message takes one.
 */
export class MessageBudget {
  private tokens: number;
  private last: number;

  /** @param now clock in ms (tests pass their own) */
  constructor(
    private readonly burst = MESSAGE_BURST,
    private readonly perSecond = MESSAGES_PER_SECOND,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Takes a token for one message; false when none is left (the connection is over its budget). */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
