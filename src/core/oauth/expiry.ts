/**
 * When an access token is refreshed: ahead of its expiry by {@link REFRESH_SKEW_MS},
 * or by half its lifetime for short-lived tokens, so a call never leaves with a token
 * about to lapse. A token without `expires_in` is used until the server refuses it.
 */
export const REFRESH_SKEW_MS = 60_000;
/** A 401 right after a refresh means the server does not take our tokens: no second refresh. */
export const REFRESH_COOLDOWN_MS = 30_000;

export interface TokenTimes {
  /** When the token was obtained (ms). */
  obtainedAt: number;
  /** When it expires (ms), if the server said. */
  expiresAt?: number | undefined;
}

export function expiresAtFrom(obtainedAt: number, expiresInSeconds: number | undefined): number | undefined {
  return typeof expiresInSeconds === "number" && Number.isFinite(expiresInSeconds) && expiresInSeconds > 0
    ? obtainedAt + expiresInSeconds * 1000
    : undefined;
}

export function refreshDueAt(times: TokenTimes): number | undefined {
  if (times.expiresAt === undefined) return undefined;
  const lifetime = Math.max(0, times.expiresAt - times.obtainedAt);
  return times.expiresAt - Math.min(REFRESH_SKEW_MS, lifetime / 2);
}

export function needsRefresh(times: TokenTimes, now: number): boolean {
  const due = refreshDueAt(times);
  return due !== undefined && now >= due;
}

export function isExpired(times: TokenTimes, now: number): boolean {
  return times.expiresAt !== undefined && now >= times.expiresAt;
}
