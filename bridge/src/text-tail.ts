/**
 * The last N characters of a stream (a server's stderr): bounded whatever the server
 * writes, decoded across chunk boundaries so a split multi-byte character stays whole.
 */
import { StringDecoder } from "node:string_decoder";

export interface TextTail {
  /** Adds a chunk; returns it decoded, for callers that also log it. */
  append(chunk: Buffer | string): string;
  /** The retained tail (at most `maxChars`). */
  text(): string;
  /** Characters seen in total, retained or not. */
  readonly totalChars: number;
}

export function createTextTail(maxChars: number): TextTail {
  const decoder = new StringDecoder("utf8");
  let tail = "";
  let total = 0;
  return {
    append(chunk) {
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      total += text.length;
      // Only the chunk's own last maxChars can survive, so a 1 MB chunk costs one slice.
      tail = (tail + text.slice(-maxChars)).slice(-maxChars);
      return text;
    },
    text() {
      return tail;
    },
    get totalChars() {
      return total;
    },
  };
}
