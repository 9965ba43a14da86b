/**
 * Sampling's protocol errors: each carries the JSON-RPC code it crosses the MCP wire with
 * (the session turns it into the SDK's `McpError(code, message, data)`), so nothing
 * downstream decides what an error is from its message text. Refusals use code -1 and a
 * reason label that front-ends and tests can match on.
 */

export const SamplingErrorCodes = {
  refused: -1,
  invalidParams: -32602,
  requestTimeout: -32001,
  internalError: -32603,
} as const;

/** Why a sampling request was refused (JSON-RPC code -1). */
export type RefusalReason = "policy" | "no_session" | "rejected" | "timeout" | "rate_limited" | (string & {});

const BRAND = Symbol.for("mcp-edge.sampling-error");

export class SamplingError extends Error {
  readonly [BRAND] = true;

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly reason?: RefusalReason,
  ) {
    super(message);
    this.name = "SamplingError";
  }

  /** Brand check, so errors from another bundled copy still count. */
  static is(value: unknown): value is SamplingError {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }
}

/** A refusal (policy, no session, user reject, approval timeout, rate limit): code -1, `data.reason` = the label. */
export function refused(reason: RefusalReason, message: string): SamplingError {
  return new SamplingError(SamplingErrorCodes.refused, message, { reason }, reason);
}

export function invalidParams(message: string, data?: unknown): SamplingError {
  return new SamplingError(SamplingErrorCodes.invalidParams, message, data);
}

export function requestTimeout(message: string, data?: unknown): SamplingError {
  return new SamplingError(SamplingErrorCodes.requestTimeout, message, data);
}

export function internalError(message: string, data?: unknown): SamplingError {
  return new SamplingError(SamplingErrorCodes.internalError, message, data);
}
