/**
 * The output budget of a run: the result and the logs share `maxOutputBytes` (UTF-8),
 * the result first. A result that does not fit becomes its JSON text cut with a marker;
 * logs past what is left are cut, and one marker line says how many were cut or left out.
 */
export const TRUNCATION_MARKER = "[truncated:";

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The longest prefix of `text` within `bytes` UTF-8 bytes (never splits a character). */
export function cutToBytes(text: string, bytes: number): string {
  if (bytes <= 0) return "";
  if (text.length * 3 <= bytes || byteLength(text) <= bytes) return text;
  let low = 0;
  let high = Math.min(text.length, bytes);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (byteLength(text.slice(0, mid)) <= bytes) low = mid;
    else high = mid - 1;
  }
  // A cut between the halves of a surrogate pair would leave a lone half.
  const last = text.charCodeAt(low - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, low - 1) : text.slice(0, low);
}

export class OutputBudget {
  private readonly logs: string[] = [];
  private used = 0;
  private droppedLines = 0;
  /** The last kept line is a cut one (it already counts in `droppedLines`). */
  private lastLineCut = false;

  constructor(private readonly maxBytes: number) {}

  /** Adds a log line, cut when the budget runs out; later lines are only counted. */
  log(line: string): void {
    if (this.droppedLines > 0) {
      this.droppedLines++;
      return;
    }
    const size = byteLength(line);
    if (this.used + size <= this.maxBytes) {
      this.logs.push(line);
      this.used += size;
      return;
    }
    const kept = cutToBytes(line, this.maxBytes - this.used);
    if (kept) this.logs.push(kept);
    this.lastLineCut = kept !== "";
    this.used = this.maxBytes;
    this.droppedLines = 1;
  }

  /** Counts lines the sandbox already dropped on its side (it keeps its own copy of the budget). */
  dropped(lines: number): void {
    if (lines <= 0) return;
    this.used = this.maxBytes;
    this.droppedLines += lines;
  }

  /**
   * The output as the API returns it. The result comes first: as is when its JSON fits
   * the budget, else its JSON cut with a marker; the logs get what is left, from the start.
   */
  finish(resultJson?: string): { result?: unknown; logs: string[] } {
    let resultBytes = 0;
    let result: { result?: unknown } = {};
    if (resultJson !== undefined) {
      const size = byteLength(resultJson);
      if (size <= this.maxBytes) {
        resultBytes = size;
        result = { result: JSON.parse(resultJson) as unknown };
      } else {
        const kept = cutToBytes(resultJson, this.maxBytes);
        resultBytes = this.maxBytes;
        result = { result: `${kept}${TRUNCATION_MARKER} ${size - byteLength(kept)} more bytes of the result]` };
      }
    }
    let left = this.maxBytes - resultBytes;
    let dropped = this.droppedLines;
    const logs: string[] = [];
    for (const [i, line] of this.logs.entries()) {
      const size = byteLength(line);
      if (size <= left) {
        logs.push(line);
        left -= size;
        continue;
      }
      const kept = cutToBytes(line, left);
      if (kept) logs.push(kept);
      // The line cut here counts once, whether or not it was already the cut one.
      dropped += this.logs.length - i - (this.lastLineCut ? 1 : 0);
      break;
    }
    if (dropped > 0) logs.push(`${TRUNCATION_MARKER} ${dropped} log line(s) cut or left out]`);
    return { ...result, logs };
  }
}
