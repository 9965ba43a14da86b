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
  let buffer = "";
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
      buffer += text;
      const out: SseEvent[] = [];
      let start = 0;
      for (;;) {
        // Lines end with CRLF, LF or a lone CR.
        const lf = buffer.indexOf("\n", start);
        const cr = buffer.indexOf("\r", start);
        if (lf < 0 && cr < 0) break;
        let end: number;
        let next: number;
        if (cr >= 0 && (lf < 0 || cr < lf)) {
          // A CR at the very end may be the first half of a CRLF: wait for more.
          if (cr === buffer.length - 1) break;
          end = cr;
          next = buffer.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        } else {
          end = lf;
          next = lf + 1;
        }
        line(buffer.slice(start, end), out);
        start = next;
      }
      buffer = buffer.slice(start);
      return out;
    },
    get retry() {
      return retry;
    },
  };
}
