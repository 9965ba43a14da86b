import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SessionBodySchema } from "../../src/core/config.js";
import { McpEdgeError } from "../../src/core/errors.js";
import { bodyTooLarge, checkRequestNesting, checkToolResultSize, MAX_REQUEST_NESTING, MAX_TOOL_RESULT_CHARS, nestingDepth } from "../../src/core/limits.js";
import { nested } from "./properties/arbitraries.js";

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(McpEdgeError.is(error)).toBe(true);
    return (error as McpEdgeError).code;
  }
}

describe("limits", () => {
  it("nestingDepth counts arrays and objects without recursion and stops at the limit", () => {
    expect(nestingDepth("x", 10)).toBe(0);
    expect(nestingDepth({ a: [1, { b: 2 }] }, 10)).toBe(3);
    expect(nestingDepth(nested(1_000_000, 1, false), 65)).toBe(65);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.boolean(), (depth, asObject) => {
        expect(nestingDepth(nested(depth, 1, asObject), 1_000)).toBe(depth);
      }),
    );
  });

  it("request nesting: at the cap passes, one deeper is a 400 badRequest", () => {
    expect(codeOf(() => checkRequestNesting(nested(MAX_REQUEST_NESTING, 1, true)))).toBeUndefined();
    expect(codeOf(() => checkRequestNesting(nested(MAX_REQUEST_NESTING + 1, 1, true)))).toBe("badRequest");
    expect(new McpEdgeError("badRequest", "x").status).toBe(400);
  });

  it("tool results: output plus attachments over the cap is a 502 resultTooLarge naming both sizes", () => {
    expect(codeOf(() => checkToolResultSize({ output: "x".repeat(10), attachments: [] }, 10))).toBeUndefined();
    expect(codeOf(() => checkToolResultSize({ output: "x".repeat(5), attachments: [{ mime: "a/b", url: "data:,12" }] }, 10))).toBe("resultTooLarge");
    try {
      checkToolResultSize({ output: "x".repeat(11), attachments: [] }, 10);
    } catch (error) {
      expect((error as McpEdgeError).status).toBe(502);
      expect((error as McpEdgeError).data).toEqual({ size: 11, limit: 10 });
    }
    expect(MAX_TOOL_RESULT_CHARS).toBeGreaterThan(Math.ceil((10 * 1024 * 1024 * 4) / 3));
  });

  it("roots: 64 per session pass, 65 are a parse failure", () => {
    const roots = (n: number) => Array.from({ length: n }, (_, i) => `file:///r${i}`);
    expect(SessionBodySchema.safeParse({ roots: roots(64) }).success).toBe(true);
    expect(SessionBodySchema.safeParse({ roots: roots(65) }).success).toBe(false);
  });

  it("an oversized body is a 413 payloadTooLarge", () => {
    expect(bodyTooLarge().toJSON().error.code).toBe("payloadTooLarge");
    expect(bodyTooLarge().status).toBe(413);
  });
});
