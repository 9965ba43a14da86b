/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream format): feed it
 * decoded text as it arrives, get back complete events. One small loop instead of a
 * TextDecoderStream → EventSourceParserStream pipeline per response, which was the
 * largest single cost of a proxied tool call in workerd.
 */

export interface SseEvent {
  /** The event's own `id` field, if it had one. */
  id?: string;
  /** The `event` field; "" means the default ("message"). */
  event: string;
  data: string;
}

export interface SseParser {
  /** Feeds a chunk of text; returns the events it completed. */
  push(text: string): SseEvent[];
  /** The `retry` value last announced by the server, in ms. */
  readonly retry: number | undefined;
}

export function createSseParser(): SseParser {
  // The unfinished line, in the pieces it arrived in: each chunk is scanned once and joined
  // once, so a 10 MB line in 16 KB chunks costs linear time (re-scanning one growing
  // buffer per chunk made it quadratic: seconds of CPU per large tool result).
  let pieces: string[] = [];
  // The previous chunk ended with CR: a LF opening this one belongs to it (CRLF).
  let afterCr = false;
  let id: string | undefined;
  let event = "";
  let data: string[] = [];
  let hasData = false;
  let retry: number | undefined;

  function line(text: string, out: SseEvent[]): void {
    if (text === "") {
      // As the spec (and eventsource-parser, which the SDK uses): no data field, no event.
      if (hasData) out.push({ ...(id !== undefined ? { id } : {}), event, data: data.join("\n") });
      id = undefined;
      event = "";
      data = [];
      hasData = false;
      return;
    }
    if (text.charCodeAt(0) === 58 /* ":" comment */) return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case "data":
        data.push(value);
        hasData = true;
        break;
      case "event":
        event = value;
        break;
      case "id":
        if (!value.includes("\u0000")) id = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) retry = Number(value);
        break;
      default:
        break;
    }
  }

  return {
    push(text: string): SseEvent[] {
      const out: SseEvent[] = [];
      let start = 0;
      if (afterCr && text.length > 0) {
        afterCr = false;
        if (text.charCodeAt(0) === 10) start = 1;
      }
      // Next LF / CR at or after `start`; -1 once there is none left in this chunk.
      let lf = -2;
      let cr = -2;
      while (start < text.length) {
        if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
        if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
        if (lf < 0 && cr < 0) break;
        // Lines end with CRLF, LF or a lone CR.
        let end: number;
        let next: number;
        if (cr >= 0 && (lf < 0 || cr < lf)) {
          end = cr;
          if (cr === text.length - 1) {
            afterCr = true;
            next = cr + 1;
          } else next = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        } else {
          end = lf;
          next = lf + 1;
        }
        const tail = text.slice(start, end);
        line(pieces.length > 0 ? pieces.join("") + tail : tail, out);
        pieces = [];
        start = next;
      }
      if (start < text.length) pieces.push(text.slice(start));
      return out;
    },
    get retry() {
      return retry;
    },
  };
}
