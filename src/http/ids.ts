/**
 * Session ids: 130 random bits, base32 (Crockford), 26 characters, prefixed `ses_`.
 * Anything else in a URL is not a session we made, so it is a 404 without touching
 * a Durable Object.
 */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export const SESSION_ID_PATTERN = /^ses_[0-9a-hjkmnp-tv-z]{26}$/;

export function newSessionId(): string {
  // 26 characters × 5 random bits each = 130 bits.
  const bytes = crypto.getRandomValues(new Uint8Array(26));
  return `ses_${[...bytes].map((b) => ALPHABET[b & 31]).join("")}`;
}
