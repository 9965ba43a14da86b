/**
 * ULIDs (26 characters, Crockford base32): 48 bits of milliseconds, then 80 random
 * bits, so turn ids sort by creation time.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function ulid(now: number = Date.now(), randomBytes: (n: number) => Uint8Array = (n) => crypto.getRandomValues(new Uint8Array(n))): string {
  let time = "";
  let t = Math.floor(now);
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rest = "";
  for (let i = 0; i < 16; i++) rest += ALPHABET[bytes[i]! & 31]!;
  return time + rest;
}
