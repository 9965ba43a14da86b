/**
 * The stream formats under generated input: the SSE parser gives the same events however
 * the text is cut into chunks and never throws on any text; the session event log answers
 * every Last-Event-ID (NaN, negative, fractional, huge) with a consistent, bounded list; and
 * its SSE rendering parses back to the event it came from.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { EventLog, formatSse, type SessionEventType } from "../../../src/core/events.js";
import { createSseParser, type SseEvent } from "../../../src/core/sse-parser.js";
import { anyNumber, anyString, anyValue, expectNoPollution, ownObject, pollutionPayload, RUNS } from "./arbitraries.js";

afterEach(expectNoPollution);

/** Feeds `text` in pieces cut at `cuts` (positions), collecting every event. */
function parseInPieces(text: string, cuts: number[]): SseEvent[] {
  const parser = createSseParser();
  const events: SseEvent[] = [];
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (text.length + 1))].sort((a, b) => a - b)) {
    events.push(...parser.push(text.slice(at, cut)));
    at = cut;
  }
  events.push(...parser.push(text.slice(at)));
  return events;
}

const sseLine = fc.oneof(
  fc.tuple(fc.constantFrom("data", "event", "id", "retry", ":", "", "data:", "x"), fc.string({ maxLength: 12 })).map(([field, value]) => `${field}: ${value}`),
  fc.constantFrom("", "data", "data:", "id: a\u0000b", "retry: 12", "retry: -1", ": comment"),
  fc.string({ unit: "binary", maxLength: 16 }),
);
const eol = fc.constantFrom("\n", "\r\n", "\r");
const sseText = fc.array(fc.tuple(sseLine, eol), { maxLength: 30 }).map((lines) => lines.map(([l, e]) => l + e).join(""));

describe("SSE parser (property)", () => {
  it("any text: never throws, every event has string data", () => {
    fc.assert(
      fc.property(fc.oneof(sseText, anyString), (text) => {
        for (const event of createSseParser().push(text)) {
          expect(typeof event.data).toBe("string");
          expect(typeof event.event).toBe("string");
        }
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("the same events however the stream is cut (CRLF split across chunks included)", () => {
    fc.assert(
      fc.property(sseText, fc.array(fc.nat(), { maxLength: 10 }), (text, cuts) => {
        // A lone CR at the very end is a line end only once more text says it is not CRLF; end with LF.
        const whole = createSseParser().push(`${text}\n`);
        expect(parseInPieces(`${text}\n`, cuts)).toEqual(whole);
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("regression: a 10 MB data line in 16 KB chunks is parsed in linear time (was quadratic: seconds of CPU)", () => {
    const text = `data: ${"x".repeat(10_000_000)}\n\n`;
    const parser = createSseParser();
    const events: SseEvent[] = [];
    for (let at = 0; at < text.length; at += 16_384) events.push(...parser.push(text.slice(at, at + 16_384)));
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(10_000_000);
  });
});

const eventType = fc.constantFrom<SessionEventType>("server.status", "tools.changed", "tool.started", "tool.progress", "tool.finished", "turn.ended", "log");

describe("EventLog (property)", () => {
  it("answers any Last-Event-ID with ordered, bounded events and an honest gap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 60 }), fc.oneof(anyNumber, fc.integer({ min: -5, max: 70 })), (capacity, appended, lastId) => {
        const log = new EventLog(capacity);
        for (let i = 0; i < appended; i++) log.append("tool.started", { i }, 0);
        const events = log.since(lastId);
        expect(events.length).toBeLessThanOrEqual(capacity + 1);
        const [first, ...rest] = events;
        const real = first?.type === "gap" ? rest : events;
        for (let i = 1; i < real.length; i++) expect(real[i]!.id).toBe(real[i - 1]!.id + 1);
        if (first?.type === "gap") {
          const missed = (first.data as { missed: number }).missed;
          expect(Number.isInteger(missed) && missed > 0).toBe(true);
          // Every id up to the gap's was either seen or counted as missed.
          expect(first.id).toBe(real[0]?.id !== undefined ? real[0].id - 1 : log.lastId);
          expect(missed).toBeLessThanOrEqual(appended);
        }
        for (const e of real) expect(e.id).toBeGreaterThan(Number.isNaN(lastId) ? 0 : Math.floor(lastId));
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("regression: a negative, fractional or NaN Last-Event-ID never reports missed events that never existed", () => {
    const log = new EventLog(10);
    for (let i = 0; i < 3; i++) log.append("tool.started", { i });
    expect(log.since(-5).map((e) => e.id)).toEqual([1, 2, 3]);
    expect(log.since(1.5).map((e) => e.id)).toEqual([2, 3]);
    expect(log.since(Number.NaN).map((e) => e.id)).toEqual([1, 2, 3]);
    expect(log.since(Number.POSITIVE_INFINITY)).toEqual([]);
  });

  it("formatSse output parses back to the event (any data, lone surrogates, prototype keys)", () => {
    fc.assert(
      fc.property(eventType, fc.oneof(ownObject(anyValue), fc.constant(pollutionPayload())), fc.integer({ min: 0, max: 4_102_444_800_000 }), (type, data, at) => {
        const event = new EventLog().append(type, data, at);
        const parsed = createSseParser().push(formatSse(event));
        expect(parsed).toHaveLength(1);
        expect(parsed[0]!.id).toBe(String(event.id));
        expect(parsed[0]!.event).toBe(type);
        const body = JSON.parse(parsed[0]!.data) as Record<string, unknown>;
        expect(body.at).toBe(event.at);
        expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
      }),
      { numRuns: RUNS.medium },
    );
  });
});

describe("SSE parser regressions", () => {
  it("regression: an empty chunk between the CR and LF of a CRLF does not make two line ends", () => {
    const parser = createSseParser();
    expect([...parser.push("data: x\r"), ...parser.push(""), ...parser.push("\n")]).toEqual([]);
    expect(parser.push("\n")).toEqual([{ event: "", data: "x" }]);
  });
});
