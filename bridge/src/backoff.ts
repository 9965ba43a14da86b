/**
 * Reconnect delays for the bridge's link to mcp-edge: exponential with full jitter
 * (uniform in [0, min(cap, base·2^attempt))), so many bridges dropped by one deploy do
 * not reconnect in lockstep. A connection that stayed up `stableMs` counts as healthy
 * and the next failure starts from the base again; one that drops at once does not.
 */

export const DEFAULT_BACKOFF_BASE_MS = 500;
export const DEFAULT_BACKOFF_CAP_MS = 30_000;
/** How long a connection must last before its loss no longer counts as a failed attempt. */
export const DEFAULT_BACKOFF_STABLE_MS = 30_000;

export interface BackoffOptions {
  baseMs?: number;
  capMs?: number;
  stableMs?: number;
  /** Uniform in [0, 1); `Math.random` by default. */
  random?: () => number;
  /** Milliseconds clock; `Date.now` by default. */
  now?: () => number;
}

export interface Backoff {
  /** Delay before the next attempt; each call counts one more attempt. */
  nextDelay(): number;
  /** The connection is up (starts the stability clock). */
  connected(): void;
  /** The connection ended; attempts reset if it was up for `stableMs` or longer. */
  disconnected(): void;
  /** Forget every attempt, e.g. after the user asks for an immediate retry. */
  reset(): void;
  /** Attempts counted since the last reset. */
  readonly attempts: number;
}

/** The ceiling for a given attempt (0-based), before jitter. */
export function backoffCeiling(attempt: number, baseMs: number = DEFAULT_BACKOFF_BASE_MS, capMs: number = DEFAULT_BACKOFF_CAP_MS): number {
  // Past 2^30 the product is far beyond any cap; clamping keeps it finite.
  return Math.min(capMs, baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
}

export function createBackoff(options: BackoffOptions = {}): Backoff {
  const baseMs = options.baseMs ?? DEFAULT_BACKOFF_BASE_MS;
  const capMs = options.capMs ?? DEFAULT_BACKOFF_CAP_MS;
  const stableMs = options.stableMs ?? DEFAULT_BACKOFF_STABLE_MS;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  let attempts = 0;
  let connectedAt: number | undefined;

  return {
    nextDelay() {
      const ceiling = backoffCeiling(attempts, baseMs, capMs);
      attempts++;
      return Math.floor(random() * ceiling);
    },
    connected() {
      connectedAt = now();
    },
    disconnected() {
      if (connectedAt !== undefined && now() - connectedAt >= stableMs) attempts = 0;
      connectedAt = undefined;
    },
    reset() {
      attempts = 0;
      connectedAt = undefined;
    },
    get attempts() {
      return attempts;
    },
  };
}
