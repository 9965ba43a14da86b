import { describe, expect, it } from "vitest";
import { declaresTurnLifecycle, turnMeta } from "../../src/core/turn-lifecycle.js";
import { ULID_PATTERN, ulid } from "../../src/core/ulid.js";

describe("ulid", () => {
  it("26 Crockford characters that sort by time", () => {
    const zeros = (n: number) => new Uint8Array(n);
    const a = ulid(1_700_000_000_000, zeros);
    const b = ulid(1_700_000_000_001, zeros);
    expect(a).toMatch(ULID_PATTERN);
    expect(a < b).toBe(true);
    expect(ulid(0, zeros)).toBe("0".repeat(26));
    expect(ulid()).not.toBe(ulid());
  });
});

describe("turn lifecycle", () => {
  it("only a declared experimental capability counts", () => {
    expect(declaresTurnLifecycle({ experimental: { "io.mcp-edge/turn-lifecycle": { version: 1 } } })).toBe(true);
    expect(declaresTurnLifecycle({ experimental: { other: {} } })).toBe(false);
    expect(declaresTurnLifecycle({})).toBe(false);
    expect(declaresTurnLifecycle(undefined)).toBe(false);
  });

  it("_meta carries session, turn and (when known) actor", () => {
    expect(turnMeta({ sessionId: "s", turnId: "t" })).toEqual({ sessionId: "s", turnId: "t" });
    expect(turnMeta({ sessionId: "s", turnId: "t", actorId: "a" })).toEqual({ sessionId: "s", turnId: "t", actorId: "a" });
  });
});
