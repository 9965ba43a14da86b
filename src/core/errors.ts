/**
 * Local errors: a string code and the HTTP status it maps to. They never cross
 * the MCP wire (protocol errors there are the SDK's McpError with a JSON-RPC code);
 * the HTTP layer turns them into `{"error":{code,message,data?}}` in one place.
 */

export const ErrorCodes = {
  badRequest: 400,
  invalidConfig: 400,
  unauthorized: 401,
  forbidden: 403,
  unknownKeys: 400,
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
  /** A feature the deployment is not configured for (e.g. no CREDENTIALS_KEY). */
  notConfigured: 503,
  /** The session's object was interrupted mid-request (restarted or overloaded); its state is kept, a retry works. */
  sessionUnavailable: 503,
  cancelled: 499,
  internal: 500,
  authNotConfigured: 503,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

const BRAND = Symbol.for("mcp-edge.error");

export class McpEdgeError extends Error {
  readonly [BRAND] = true;
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpEdgeError";
    this.status = ErrorCodes[code];
  }

  /** Brand check, so errors from another bundled copy still count. */
  static is(value: unknown): value is McpEdgeError {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  toJSON(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.data === undefined ? {} : { data: this.data }) } };
  }
}

export interface ErrorBody {
  error: { code: string; message: string; data?: unknown };
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
