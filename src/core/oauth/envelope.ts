/**
 * The at-rest format of an encrypted credential record: `v1.<iv>.<ciphertext>`, both
 * base64url, the ciphertext being AES-GCM (256-bit key, 96-bit IV, 128-bit tag) of the
 * record's JSON with the storage key as additional data, so a record copied under
 * another key does not decrypt. The version lets a later key or cipher coexist.
 * Pure: parsing and formatting only; the cipher is WebCrypto's, in the vault.
 */
import { base64Url, fromBase64Url } from "./state.js";

export const ENVELOPE_VERSION = "v1";
export const IV_BYTES = 12;

export interface Envelope {
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
}

export function formatEnvelope(envelope: Envelope): string {
  return `${ENVELOPE_VERSION}.${base64Url(envelope.iv)}.${base64Url(envelope.ciphertext)}`;
}

export type EnvelopeParse = { success: true; value: Envelope } | { success: false; error: string };

export function parseEnvelope(text: unknown): EnvelopeParse {
  if (typeof text !== "string") return { success: false, error: "not a string" };
  const parts = text.split(".");
  if (parts.length !== 3) return { success: false, error: "not three dot-separated parts" };
  const [version, iv, ciphertext] = parts as [string, string, string];
  if (version !== ENVELOPE_VERSION) return { success: false, error: `unknown envelope version ${version}` };
  if (!/^[A-Za-z0-9_-]+$/.test(iv) || !/^[A-Za-z0-9_-]+$/.test(ciphertext)) return { success: false, error: "not base64url" };
  const ivBytes = fromBase64Url(iv);
  if (ivBytes.length !== IV_BYTES) return { success: false, error: `iv must be ${IV_BYTES} bytes` };
  const body = fromBase64Url(ciphertext);
  // The GCM tag alone is 16 bytes.
  if (body.length < 16) return { success: false, error: "ciphertext too short" };
  return { success: true, value: { iv: ivBytes, ciphertext: body } };
}

/**
 * The AES-GCM key from the deployment's secret (`CREDENTIALS_KEY`): SHA-256 of its
 * UTF-8 bytes, so any long random string works. Too short a secret is refused.
 */
export const MIN_SECRET_LENGTH = 32;

export async function credentialsKey(secret: string): Promise<CryptoKey> {
  if (secret.length < MIN_SECRET_LENGTH) throw new RangeError(`CREDENTIALS_KEY must be at least ${MIN_SECRET_LENGTH} characters`);
  const raw = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret));
  return crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

/** Encrypts `value` (as JSON) bound to `aad` (the storage key). */
export async function seal(key: CryptoKey, aad: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const plaintext = new TextEncoder().encode(JSON.stringify(value));
  const ciphertext = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(aad) }, key, plaintext));
  return formatEnvelope({ iv, ciphertext });
}

/** Decrypts an envelope sealed for `aad`; a wrong key, a tampered record or another key's record fail. */
export async function open(key: CryptoKey, aad: string, text: unknown): Promise<{ success: true; value: unknown } | { success: false; error: string }> {
  const parsed = parseEnvelope(text);
  if (!parsed.success) return parsed;
  try {
    const plaintext = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: parsed.value.iv, additionalData: new TextEncoder().encode(aad) },
      key,
      parsed.value.ciphertext,
    );
    return { success: true, value: JSON.parse(new TextDecoder().decode(plaintext)) };
  } catch {
    return { success: false, error: "record does not decrypt (wrong key, tampered, or stored under another key)" };
  }
}
