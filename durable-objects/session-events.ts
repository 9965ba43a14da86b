/**
 * A session's live event stream: Server-Sent Events to every subscriber, resumable with
 * `Last-Event-ID` from the session's EventLog. A slow subscriber never blocks the session
 * or grows memory: its queue is bounded, events that do not fit are dropped, and it gets
 * a `gap` event saying how many it missed once it catches up.
 */
import { McpEdgeError } from "../src/core/errors.js";
import { EventLog, formatSse, type SessionEvent, type SessionEventType } from "../src/core/events.js";
import { MAX_EVENT_SUBSCRIBERS } from "../src/core/limits.js";

/** Storage key of the last event id, so numbering survives eviction (the ring does not). */
export const LAST_EVENT_ID_KEY = "events:lastId";

/** The part of Durable Object storage the numbering needs (structural, so plain Node can type-check this module). */
export interface EventIdStorage {
  get(key: string): Promise<unknown>;
  put(key: string, value: number): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/** Events queued per subscriber before it counts as slow. */
export const SUBSCRIBER_QUEUE_EVENTS = 256;

interface Subscriber {
  push(event: SessionEvent): void;
  close(): void;
}

export class SessionEvents {
  private readonly log = new EventLog();
  private readonly subscribers = new Set<Subscriber>();
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private readonly encoder = new TextEncoder();

  /** With storage, each event's id is recorded (unawaited: the output gate holds the event until it is durable). */
  constructor(private readonly storage?: EventIdStorage) {}

  /** Continues the numbering of the object before an eviction; call before the first emit. */
  async restore(): Promise<void> {
    const stored = await this.storage?.get(LAST_EVENT_ID_KEY);
    if (typeof stored === "number" && Number.isSafeInteger(stored) && stored > 0) this.log.continueAfter(stored);
  }

  /** Forgets the stored numbering (the session is deleted). */
  async forget(): Promise<void> {
    await this.storage?.delete(LAST_EVENT_ID_KEY);
  }

  emit(type: SessionEventType, data: Record<string, unknown>): void {
    const event = this.log.append(type, data);
    this.storage?.put(LAST_EVENT_ID_KEY, event.id).catch((error: unknown) => console.warn("event id not persisted", String(error).slice(0, 200)));
    for (const subscriber of this.subscribers) subscriber.push(event);
    for (const listener of this.listeners) listener(event);
  }

  /** The log since an event id (all of it for undefined), with a gap marker when some fell out. */
  since(lastEventId: number | undefined): SessionEvent[] {
    return this.log.since(lastEventId);
  }

  /** Calls `listener` with every event from now on (in-process consumers: the MCP endpoint, the WebSocket stream); returns the unsubscribe. */
  listen(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** A streaming SSE response; it ends when the caller goes away or the session closes. */
  subscribe(lastEventId: number | undefined, signal: AbortSignal | undefined): Response {
    if (this.subscribers.size >= MAX_EVENT_SUBSCRIBERS) {
      throw new McpEdgeError("tooManySubscribers", `this session already has ${MAX_EVENT_SUBSCRIBERS} event subscribers`, { limit: MAX_EVENT_SUBSCRIBERS });
    }
    let subscriber: Subscriber | undefined;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          let dropped = 0;
          let closed = false;
          const write = (text: string) => controller.enqueue(this.encoder.encode(text));
          subscriber = {
            push: (event) => {
              if (closed) return;
              if ((controller.desiredSize ?? 0) <= 0) {
                dropped++;
                return;
              }
              if (dropped > 0) {
                write(formatSse({ id: event.id - 1, type: "gap", at: event.at, data: { missed: dropped } }));
                dropped = 0;
              }
              write(formatSse(event));
            },
            close: () => {
              if (closed) return;
              closed = true;
              this.subscribers.delete(subscriber!);
              try {
                // Say what was dropped even if the reader never caught up (one event over the bound).
                if (dropped > 0) write(formatSse({ id: this.log.lastId, type: "gap", at: new Date().toISOString(), data: { missed: dropped } }));
                controller.close();
              } catch {
                // already closed by the reader
              }
            },
          };
          // A comment first, so the client sees the stream open at once.
          write(": mcp-edge events\n\n");
          for (const event of this.log.since(lastEventId)) write(formatSse(event));
          this.subscribers.add(subscriber);
          signal?.addEventListener("abort", () => subscriber?.close());
        },
        cancel: () => {
          if (subscriber) this.subscribers.delete(subscriber);
        },
      },
      { highWaterMark: SUBSCRIBER_QUEUE_EVENTS, size: () => 1 },
    );
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }

  closeAll(): void {
    for (const subscriber of [...this.subscribers]) subscriber.close();
  }
}
