import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { toMcpError, toolFailure } from "../../durable-objects/mcp-errors.js";
import { McpEdgeError } from "../../src/core/errors.js";

describe("the aggregated endpoint's error mapping", () => {
  it("maps typed local errors to JSON-RPC codes, keeping an upstream code", () => {
    expect(toMcpError(new McpEdgeError("toolNotFound", "unknown tool \"x\"")).code).toBe(ErrorCode.InvalidParams);
    expect(toMcpError(new McpEdgeError("serverNotFound", "no server")).code).toBe(ErrorCode.InvalidParams);
    expect(toMcpError(new McpEdgeError("timeout", "slow")).code).toBe(ErrorCode.RequestTimeout);
    expect(toMcpError(new McpEdgeError("upstreamError", "bad", { server: "s", rpcCode: -32602 })).code).toBe(-32602);
    expect(toMcpError(new McpEdgeError("serverUnavailable", "down")).code).toBe(ErrorCode.InternalError);
    const plain = toMcpError(new Error("boom"));
    expect(plain.code).toBe(ErrorCode.InternalError);
    const own = new McpError(-32002, "kept");
    expect(toMcpError(own)).toBe(own);
    expect(toMcpError(new McpEdgeError("toolNotFound", "x", { name: "x" })).data).toEqual({ code: "toolNotFound", data: { name: "x" } });
  });

  it("turns an unreachable or slow server into a tool error, and throws the rest", () => {
    expect(toolFailure(new McpEdgeError("serverUnavailable", "server \"s\" is unreachable"))).toEqual({
      content: [{ type: "text", text: "server \"s\" is unreachable" }],
      isError: true,
    });
    expect(toolFailure(new McpEdgeError("timeout", "timed out")).isError).toBe(true);
    expect(toolFailure(new McpEdgeError("upstreamError", "no code")).isError).toBe(true);
    expect(() => toolFailure(new McpEdgeError("upstreamError", "coded", { rpcCode: -32602 }))).toThrow(McpError);
    expect(() => toolFailure(new McpEdgeError("toolNotFound", "unknown"))).toThrow(McpError);
  });
});
