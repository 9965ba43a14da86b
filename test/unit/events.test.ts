import { describe, expect, it } from "vitest";
import { EventLog, formatSse } from "../../src/core/events.js";

describe("EventLog", () => {
  it("numbers events and returns those after a Last-Event-ID", () => {
    const log = new EventLog(10);
    for (let i = 0; i < 5; i++) log.append("tool.started", { i });
    expect(log.since(undefined).map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(log.since(3).map((e) => e.id)).toEqual([4, 5]);
    expect(log.since(5)).toEqual([]);
  });

  it("is bounded; a client that missed events that fell out gets a gap first", () => {
    const log = new EventLog(3);
    for (let i = 0; i < 10; i++) log.append("tool.started", { i });
    const events = log.since(2);
    expect(events[0]).toMatchObject({ type: "gap", id: 7, data: { missed: 5 } });
    expect(events.slice(1).map((e) => e.id)).toEqual([8, 9, 10]);
  });

  // Regression: a log rebuilt after an eviction numbered from 1 again, so a subscriber
  // resuming with its old Last-Event-ID silently skipped every new event up to that id.
  it("ids restart after eviction: continueAfter keeps numbering and reports what the lost ring held as a gap", () => {
    const log = new EventLog();
    log.continueAfter(8);
    log.continueAfter(3); // never backwards
    expect(log.append("tool.started", {}).id).toBe(9);
    log.append("tool.finished", {});
    const resumed = log.since(5);
    expect(resumed.map((e) => [e.id, e.type])).toEqual([[8, "gap"], [9, "tool.started"], [10, "tool.finished"]]);
    expect(resumed[0]!.data).toEqual({ missed: 3 });
    expect(log.since(8).map((e) => e.id)).toEqual([9, 10]);
  });

  it("formats Server-Sent Events", () => {
    const event = new EventLog().append("server.status", { server: "s", status: "connected" }, 0);
    expect(formatSse(event)).toBe(`id: 1\nevent: server.status\ndata: {"server":"s","status":"connected","at":"1970-01-01T00:00:00.000Z"}\n\n`);
  });
});

describe("SessionEvents (slow consumers)", () => {
  it("a subscriber that does not read never blocks the session: its queue is bounded and it is told what it missed", async () => {
    const { SessionEvents, SUBSCRIBER_QUEUE_EVENTS } = await import("../../durable-objects/session-events.js");
    const { createSseParser } = await import("../../src/core/sse-parser.js");
    const events = new SessionEvents();
    const response = events.subscribe(undefined, undefined);
    for (let i = 0; i < 2_000; i++) events.emit("tool.progress", { i });
    events.emit("tool.finished", { last: true });
    events.closeAll();
    const parsed = createSseParser().push(await response.text());
    const kinds = parsed.map((e) => e.event);
    expect(parsed.length).toBeLessThanOrEqual(SUBSCRIBER_QUEUE_EVENTS + 2);
    // Everything that did not fit is accounted for by the gap marker.
    expect(kinds.at(-1)).toBe("gap");
    const gap = parsed.at(-1)!;
    expect(JSON.parse(gap.data).missed + parsed.length - 1).toBe(2_001);
  });
});
