/**
 * A session's event log: numbered events in a bounded ring, so a client that reconnects
 * with `Last-Event-ID` gets what it missed, or a `gap` marker when that fell out of the
 * ring. Pure; the Durable Object turns it into Server-Sent Events.
 */
export const EVENT_LOG_CAPACITY = 1_000;

export type SessionEventType =
  | "server.status"
  | "tools.changed"
  | "tool.started"
  | "tool.progress"
  | "tool.finished"
  | "turn.ended"
  | "approval.requested"
  | "approval.resolved"
  | "sampling.progress"
  | "sampling.finished"
  | "resource.updated"
  | "log"
  | "gap";

export interface SessionEvent {
  id: number;
  type: SessionEventType;
  at: string;
  data: Record<string, unknown>;
}

export class EventLog {
  private readonly ring: SessionEvent[] = [];
  private next = 1;

  constructor(private readonly capacity = EVENT_LOG_CAPACITY) {}

  append(type: SessionEventType, data: Record<string, unknown>, now = Date.now()): SessionEvent {
    const event: SessionEvent = { id: this.next++, type, at: new Date(now).toISOString(), data };
    this.ring.push(event);
    if (this.ring.length > this.capacity) this.ring.shift();
    return event;
  }

  get lastId(): number {
    return this.next - 1;
  }

  /**
   * Numbers the next event after `lastId` (never backwards): a log rebuilt after an
   * eviction continues the old numbering, so a client's Last-Event-ID from before still
   * means "after this", and what was lost with the old ring shows as a gap.
   */
  continueAfter(lastId: number): void {
    if (lastId >= this.next) this.next = lastId + 1;
  }

  /**
   * Events after `lastId` (all of them for undefined). If some of those are gone, the
   * answer starts with a `gap` event saying how many were missed.
   */
  since(lastId: number | undefined): SessionEvent[] {
    if (lastId === undefined || Number.isNaN(lastId)) return [...this.ring];
    // Ids are whole and start at 1: a negative or fractional id means "seen up to" its floor, at least 0.
    const seen = Math.max(0, Math.floor(lastId));
    const after = this.ring.filter((e) => e.id > seen);
    const oldest = this.ring[0]?.id ?? this.next;
    const missed = Math.max(0, oldest - seen - 1);
    if (missed === 0) return after;
    // The gap carries the id of the last missed event, so a client's Last-Event-ID moves on.
    return [{ id: oldest - 1, type: "gap", at: new Date().toISOString(), data: { missed } }, ...after];
  }
}

/** One event as Server-Sent Events text. */
export function formatSse(event: SessionEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event.data, at: event.at })}\n\n`;
}
