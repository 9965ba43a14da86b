/**
 * The client's one error type: an HTTP answer that is not a success, with the status and
 * the API's typed error body (`{"error":{code,message,data?}}`). An answer without that
 * body (a proxy's HTML page, say) still becomes one, with the code `httpError`. Network
 * failures and aborts stay fetch's own errors.
 */
import type { ErrorCode } from "../core/errors.js";

/** The codes mcp-edge answers with; a newer server may send others. */
export type ApiErrorCode = ErrorCode | "httpError" | (string & {});

const BRAND = Symbol.for("mcp-edge.api-error");

export class McpEdgeApiError extends Error {
  readonly [BRAND] = true;

  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpEdgeApiError";
  }

  /** Brand check, so errors from another bundled copy of the client still count. */
  static is(value: unknown): value is McpEdgeApiError {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The error for a non-success answer, read from its body text. */
export function apiError(status: number, statusText: string, text: string): McpEdgeApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (error && typeof error.code === "string" && typeof error.message === "string") {
    return new McpEdgeApiError(status, error.code, error.message, error.data);
  }
  return new McpEdgeApiError(status, "httpError", `HTTP ${status}${statusText ? ` ${statusText}` : ""}`, text ? { body: text.slice(0, 1000) } : undefined);
}
