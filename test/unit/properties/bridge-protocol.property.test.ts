/**
 * The bridge's JSON framing under generated input: any frame round-trips through
 * encodeFrame and a decoder (chunked or not, lone surrogates included) and every chunk fits
 * a Workers WebSocket message; any text or chunk sequence decodes to a typed result
 * (`frame` | `partial` | `invalid`), never an exception, with bounded frames in flight.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  BridgeFrameSchema,
  createFrameDecoder,
  encodeFrame,
  FRAME_CHUNK_CHARS,
  GatewayFrameSchema,
  MAX_PENDING_CHUNKED_FRAMES,
  type BridgeFrame,
  type Decoded,
} from "../../../src/core/bridge-protocol.js";
import { anyString, anyValue, expectNoPollution, nastyString, pollutionPayload, RUNS } from "./arbitraries.js";

afterEach(expectNoPollution);

let n = 0;
const ids = () => `f${++n}`;
const utf8 = new TextEncoder();

/** JSON values only (what a JSON-RPC message can hold), with hostile strings. */
const jsonish: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.oneof(fc.string({ unit: "binary", maxLength: 20 }), nastyString, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie("v"), { maxKeys: 4 }),
  ),
})).v;

const message = fc.record({ jsonrpc: fc.constant("2.0"), id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })), result: jsonish });
const channel = fc.string({ minLength: 1, maxLength: 40 });
const frame: fc.Arbitrary<BridgeFrame> = fc.oneof(
  fc.record({ type: fc.constant("message" as const), channel, message }),
  fc.record({ type: fc.constant("opened" as const), channel }),
  fc.record({ type: fc.constant("closed" as const), channel, reason: fc.string({ unit: "binary", maxLength: 40 }) }),
);
/** Big enough to be chunked: 300 K to 800 K characters, some of them 3 UTF-8 bytes or escaped. */
const bigFrame: fc.Arbitrary<BridgeFrame> = fc
  .tuple(channel, fc.integer({ min: 300_000, max: 800_000 }), fc.constantFrom("x", "✓", "\u0001", '"', "\uD800"))
  .map(([ch, size, unit]) => ({ type: "message" as const, channel: ch, message: { jsonrpc: "2.0", id: 1, result: { text: unit.repeat(size) } } }));

function decodeAll(parts: string[]) {
  const decoder = createFrameDecoder(BridgeFrameSchema);
  const results = parts.map((p) => decoder.decode(p));
  return { results, pending: decoder.pendingFrames };
}

describe("bridge framing (property)", () => {
  it("any frame round-trips; chunks are under 1 MiB of UTF-8; nothing stays pending", () => {
    const roundTrip = (f: BridgeFrame) => {
        const parts = encodeFrame(f, ids);
        for (const part of parts) expect(utf8.encode(part).length).toBeLessThan(1024 * 1024);
        if (parts.length > 1) for (const part of parts) expect(part.length).toBeLessThan(FRAME_CHUNK_CHARS * 6 + 200);
        const { results, pending } = decodeAll(parts);
        expect(results.slice(0, -1).every((r) => r.kind === "partial")).toBe(true);
        expect(results.at(-1)).toEqual({ kind: "frame", frame: JSON.parse(JSON.stringify(f)) });
        expect(pending).toBe(0);
    };
    fc.assert(fc.property(frame, roundTrip), { numRuns: RUNS.cheap });
    fc.assert(fc.property(bigFrame, roundTrip), { numRuns: 12 });
  });

  it("any text decodes to a typed result, never an exception; a frame it accepts satisfies the schema", () => {
    const text = fc.oneof(
      anyString,
      fc.json(),
      anyValue.map((v) => JSON.stringify(v) ?? "null"),
      fc.record({ type: fc.constantFrom("message", "hello", "chunk", "opened", "__proto__"), channel: anyValue, message: anyValue, id: anyValue, seq: anyValue, last: anyValue, data: anyValue }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
      fc.constant(JSON.stringify({ type: "message", channel: "c", message: pollutionPayload() })),
    );
    fc.assert(
      fc.property(text, (t) => {
        for (const schema of [BridgeFrameSchema, GatewayFrameSchema] as const) {
          const decoded: Decoded<unknown> = createFrameDecoder<unknown>(schema).decode(t);
          expect(["frame", "partial", "invalid"]).toContain(decoded.kind);
          if (decoded.kind === "frame") expect(schema.safeParse(decoded.frame).success).toBe(true);
          if (decoded.kind === "invalid") expect(typeof decoded.error).toBe("string");
        }
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("any sequence of chunk frames (wrong order, unknown ids, floods) stays typed and bounded", () => {
    const chunk = fc.record({
      type: fc.constant("chunk"),
      id: fc.oneof(fc.constantFrom("a", "b", "c"), fc.string({ minLength: 1, maxLength: 3 }), jsonish),
      seq: fc.oneof(fc.integer({ min: -1, max: 3 }), jsonish),
      last: fc.oneof(fc.boolean(), jsonish),
      data: fc.oneof(fc.constantFrom('{"type":"opened",', '"channel":"c"}', "", "{"), fc.string({ maxLength: 5 }), jsonish),
    });
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 60 }), (chunks) => {
        const decoder = createFrameDecoder(BridgeFrameSchema);
        for (const c of chunks) {
          const decoded = decoder.decode(JSON.stringify(c));
          expect(["frame", "partial", "invalid"]).toContain(decoded.kind);
          expect(decoder.pendingFrames).toBeLessThanOrEqual(MAX_PENDING_CHUNKED_FRAMES);
        }
      }),
      { numRuns: RUNS.medium },
    );
  });

  it("two chunked frames interleaved still come back whole", () => {
    fc.assert(
      fc.property(fc.integer({ min: 270_000, max: 600_000 }), fc.integer({ min: 270_000, max: 600_000 }), (a, b) => {
        const frames: BridgeFrame[] = [
          { type: "message", channel: "a", message: { jsonrpc: "2.0", id: 1, result: { text: "a".repeat(a) } } },
          { type: "message", channel: "b", message: { jsonrpc: "2.0", id: 2, result: { text: "b".repeat(b) } } },
        ];
        const [pa, pb] = frames.map((f) => encodeFrame(f, ids));
        const interleaved: string[] = [];
        for (let i = 0; i < Math.max(pa!.length, pb!.length); i++) interleaved.push(...(pa![i] ? [pa![i]!] : []), ...(pb![i] ? [pb![i]!] : []));
        const done = decodeAll(interleaved).results.filter((r) => r.kind === "frame");
        expect(done.map((r) => (r.kind === "frame" && "channel" in r.frame ? r.frame.channel : ""))).toEqual(pa!.length <= pb!.length ? ["a", "b"] : ["b", "a"]);
      }),
      { numRuns: 8 },
    );
  });
});
