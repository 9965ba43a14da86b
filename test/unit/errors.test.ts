import { describe, expect, it } from "vitest";
import { ErrorCodes, McpEdgeError, messageOf, type ErrorCode } from "../../src/core/errors.js";

describe("McpEdgeError", () => {
  it("carries code, message, data and the mapped HTTP status", () => {
    const error = new McpEdgeError("toolNotFound", "no such tool", { tool: "x" });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("McpEdgeError");
    expect(error.code).toBe("toolNotFound");
    expect(error.message).toBe("no such tool");
    expect(error.data).toEqual({ tool: "x" });
    expect(error.status).toBe(404);
  });

  it("maps every code to its status", () => {
    const expected: Record<ErrorCode, number> = {
      badRequest: 400,
      invalidConfig: 400,
      unknownKeys: 400,
      unauthorized: 401,
      forbidden: 403,
      notFound: 404,
      sessionNotFound: 404,
      serverNotFound: 404,
      toolNotFound: 404,
      payloadTooLarge: 413,
      tooManySubscribers: 429,
      serverUnavailable: 502,
      resultTooLarge: 502,
      upstreamError: 502,
      timeout: 504,
      notConfigured: 503,
      sessionUnavailable: 503,
      cancelled: 499,
      internal: 500,
      authNotConfigured: 503,
    };
    expect(ErrorCodes).toEqual(expected);
    for (const code of Object.keys(expected) as ErrorCode[]) expect(new McpEdgeError(code, "m").status).toBe(expected[code]);
  });

  it("toJSON renders the API error body, with data only when present", () => {
    expect(new McpEdgeError("timeout", "too slow").toJSON()).toEqual({ error: { code: "timeout", message: "too slow" } });
    expect("data" in new McpEdgeError("timeout", "too slow").toJSON().error).toBe(false);
    expect(JSON.parse(JSON.stringify(new McpEdgeError("badRequest", "bad", { field: "x" })))).toEqual({
      error: { code: "badRequest", message: "bad", data: { field: "x" } },
    });
    expect(new McpEdgeError("badRequest", "bad", null).toJSON()).toEqual({ error: { code: "badRequest", message: "bad", data: null } });
  });

  it("is() recognizes instances and branded look-alikes from another bundled copy", () => {
    expect(McpEdgeError.is(new McpEdgeError("internal", "x"))).toBe(true);
    const foreign = { [Symbol.for("mcp-edge.error")]: true, code: "internal", message: "x" };
    expect(McpEdgeError.is(foreign)).toBe(true);
  });

  it("is() rejects other values", () => {
    for (const value of [new Error("x"), { code: "internal", message: "x" }, null, undefined, "McpEdgeError", 1, { [Symbol.for("mcp-edge.error")]: "yes" }]) {
      expect(McpEdgeError.is(value)).toBe(false);
    }
  });
});

describe("messageOf", () => {
  it("uses an Error's message, else String()", () => {
    expect(messageOf(new Error("boom"))).toBe("boom");
    expect(messageOf(new McpEdgeError("internal", "edge"))).toBe("edge");
    expect(messageOf("plain")).toBe("plain");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(null)).toBe("null");
    expect(messageOf(undefined)).toBe("undefined");
  });
});
