/**
 * A session's live event stream: Server-Sent Events to every subscriber, resumable with
 * `Last-Event-ID` from the session's EventLog. A slow subscriber never blocks the session
 * or grows memory: its queue is bounded, events that do not fit are dropped, and it gets
 * a `gap` event saying how many it missed once it catches up.
 */
import { McpEdgeError } from "../src/core/errors.js";
import { EventLog, formatSse, type SessionEvent, type SessionEventType } from "../src/core/events.js";
import { MAX_EVENT_SUBSCRIBERS } from "../src/core/limits.js";

/**
 * Storage key of the highest event id reserved, so numbering survives eviction (the ring
 * does not). Ids are reserved in blocks: one storage write per block, not per event (a write
 * per event held every tool call's answer behind the output gate: +30% latency).
 */
export const LAST_EVENT_ID_KEY = "events:lastId";

/** Event ids reserved per storage write; an eviction skips at most this many ids. */
export const EVENT_ID_BLOCK = 1_000;

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

  /** Ids up to this one are reserved in storage (an id is never given out twice, even across evictions). */
  private reservedUpTo = 0;

  /** With storage, id blocks are reserved there (unawaited: the output gate holds what follows until it is durable). */
  constructor(private readonly storage?: EventIdStorage) {}

  /**
   * Continues after the ids reserved before an eviction; call before the first emit. A
   * subscriber that resumes from before gets a `gap` covering the skipped ids.
   */
  async restore(): Promise<void> {
    const stored = await this.storage?.get(LAST_EVENT_ID_KEY);
    if (typeof stored === "number" && Number.isSafeInteger(stored) && stored > 0) {
      this.log.continueAfter(stored);
      this.reservedUpTo = stored;
    }
  }

  /** Forgets the stored numbering (the session is deleted). */
  async forget(): Promise<void> {
    await this.storage?.delete(LAST_EVENT_ID_KEY);
  }

  emit(type: SessionEventType, data: Record<string, unknown>): void {
    const event = this.log.append(type, data);
    if (this.storage && event.id > this.reservedUpTo) {
      this.reservedUpTo = event.id + EVENT_ID_BLOCK - 1;
      this.storage.put(LAST_EVENT_ID_KEY, this.reservedUpTo).catch((error: unknown) => console.warn("event ids not reserved", String(error).slice(0, 200)));
    }
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
