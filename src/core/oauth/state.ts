/**
 * The OAuth `state` parameter: `<session id>.<nonce>`. The session id tells the Worker's
 * callback which session object finishes the flow; the nonce (128 random bits) names
 * the pending flow, which lives in the principal's credential vault, is single-use and
 * expires after {@link STATE_TTL_MS}. A state that does not parse, is unknown, was used
 * already or expired is refused as CSRF. Pure: the caller supplies the random bytes and
 * the clock.
 */

/** How long an authorization may take, from `POST …/auth` to the callback. */
export const STATE_TTL_MS = 10 * 60_000;

const NONCE_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;
const SESSION_PATTERN = /^ses_[A-Za-z0-9_-]{10,64}$/;

export interface ParsedState {
  sessionId: string;
  nonce: string;
}

export function formatState(sessionId: string, nonceBytes: Uint8Array): string {
  return `${sessionId}.${base64Url(nonceBytes)}`;
}

/** The parts of a state, or undefined for anything that is not one of ours. */
export function parseState(value: string | undefined | null): ParsedState | undefined {
  if (!value || value.length > 200) return undefined;
  const dot = value.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const sessionId = value.slice(0, dot);
  const nonce = value.slice(dot + 1);
  if (!SESSION_PATTERN.test(sessionId) || !NONCE_PATTERN.test(nonce)) return undefined;
  return { sessionId, nonce };
}

export function isStateExpired(createdAt: number, now: number, ttlMs = STATE_TTL_MS): boolean {
  return !(now >= createdAt && now - createdAt < ttlMs);
}

export function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const binary = atob(padded);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
