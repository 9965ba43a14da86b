/**
 * Errors on the aggregated endpoint's wire: the session's typed local errors
 * (`McpEdgeError`, HTTP-shaped) become JSON-RPC errors (`McpError`) in this one place,
 * and a failed tools/call becomes either a JSON-RPC error or a tool error the model reads.
 */
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { McpEdgeError, messageOf } from "../src/core/errors.js";

/** The spec's JSON-RPC code for a resource no server offers. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A failed tools/call: an unknown tool or bad arguments are JSON-RPC errors (-32602), an
 * upstream JSON-RPC error keeps its code; an unreachable or slow server is a tool error
 * the model can read (isError). A cancelled call is rethrown (the SDK sends nothing).
 */
export function toolFailure(error: unknown): CallToolResult {
  if (McpEdgeError.is(error) && (error.code === "serverUnavailable" || error.code === "timeout")) {
    return { content: [{ type: "text", text: error.message }], isError: true };
  }
  if (McpEdgeError.is(error) && error.code === "upstreamError" && rpcCodeOf(error) === undefined) {
    return { content: [{ type: "text", text: error.message }], isError: true };
  }
  throw toMcpError(error);
}

/** Session calls on the MCP wire: typed local errors become JSON-RPC errors. */
export async function wire<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw toMcpError(error);
  }
}

function rpcCodeOf(error: McpEdgeError): number | undefined {
  const data = error.data as { rpcCode?: unknown } | undefined;
  return typeof data?.rpcCode === "number" ? data.rpcCode : undefined;
}

/** McpEdgeError (local, HTTP-shaped) → McpError (JSON-RPC code), the one mapping for this endpoint. */
export function toMcpError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  if (!McpEdgeError.is(error)) return new McpError(ErrorCode.InternalError, messageOf(error));
  const data = { code: error.code, ...(error.data !== undefined ? { data: error.data } : {}) };
  switch (error.code) {
    case "badRequest":
    case "invalidConfig":
    case "unknownKeys":
    case "notFound":
    case "serverNotFound":
    case "toolNotFound":
      return new McpError(ErrorCode.InvalidParams, error.message, data);
    case "timeout":
      return new McpError(ErrorCode.RequestTimeout, error.message, data);
    case "upstreamError":
      return new McpError(rpcCodeOf(error) ?? ErrorCode.InternalError, error.message, data);
    default:
      return new McpError(ErrorCode.InternalError, error.message, data);
  }
}

/** A JSON-RPC error as an HTTP answer (before any MCP session exists to carry it). */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
