/**
 * Numbers packed as bytes, and bytes as base64 text, for the serialized index: unsigned
 * LEB128 varints (7 bits a byte, small numbers take one byte) and standard base64 with
 * padding. Written by hand so the core needs no runtime API; the reader checks every
 * bound and reports a malformed input as an exception the caller turns into its error.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
/** The largest value a varint may hold (32 bits). */
const MAX_VARINT = 0xffffffff;

export interface ByteWriter {
  uint(value: number): void;
  bytes(): Uint8Array;
}

export function byteWriter(initialSize = 1 << 16): ByteWriter {
  let buffer = new Uint8Array(initialSize);
  let length = 0;
  return {
    uint(value: number): void {
      if (length + 5 > buffer.length) {
        const grown = new Uint8Array(buffer.length * 2);
        grown.set(buffer);
        buffer = grown;
      }
      let rest = value >>> 0;
      while (rest >= 0x80) {
        buffer[length++] = (rest & 0x7f) | 0x80;
        rest >>>= 7;
      }
      buffer[length++] = rest;
    },
    bytes: () => buffer.subarray(0, length),
  };
}

export interface ByteReader {
  /** The next varint; throws past the end or on one longer than 32 bits. */
  uint(): number;
  /** True when every byte was read. */
  done(): boolean;
}

export function byteReader(bytes: Uint8Array): ByteReader {
  let at = 0;
  return {
    uint(): number {
      let value = 0;
      let scale = 1;
      for (let i = 0; i < 5; i++) {
        if (at >= bytes.length) throw new Error("the data ends early");
        const byte = bytes[at++]!;
        value += (byte & 0x7f) * scale;
        if (byte < 0x80) {
          if (value > MAX_VARINT) break;
          return value;
        }
        scale *= 0x80;
      }
      throw new Error("the data holds a number that is too large");
    },
    done: () => at === bytes.length,
  };
}

export function toBase64(bytes: Uint8Array): string {
  const chunks: string[] = [];
  let chunk = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chunk += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
    if (chunk.length >= 1 << 16) {
      chunks.push(chunk);
      chunk = "";
    }
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    chunk += `${ALPHABET[n >>> 18]!}${ALPHABET[(n >>> 12) & 63]!}==`;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    chunk += `${ALPHABET[n >>> 18]!}${ALPHABET[(n >>> 12) & 63]!}${ALPHABET[(n >>> 6) & 63]!}=`;
  }
  chunks.push(chunk);
  return chunks.join("");
}

/** Throws on a length that is not a multiple of 4 or a character outside the alphabet. */
export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new Error("the data is not base64");
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const last = i + 4 === text.length;
    const c = last && padding === 2 ? 0 : sextet(text, i + 2);
    const d = last && padding >= 1 ? 0 : sextet(text, i + 3);
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >>> 16;
    if (o < out.length) out[o++] = (n >>> 8) & 0xff;
    if (o < out.length) out[o++] = n & 0xff;
  }
  return out;
}

function sextet(text: string, i: number): number {
  const code = text.charCodeAt(i);
  const value = code < 128 ? DECODE[code]! : -1;
  if (value < 0) throw new Error("the data is not base64");
  return value;
}
