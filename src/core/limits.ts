/**
 * The caps on what callers and servers may send, in one place with their reasons, and the
 * pure checks behind them. Past a cap the caller gets a typed error (see docs/RELIABILITY.md):
 * a 413 for a body, a 400 for nesting or a search query, a 502 for a tool result, a 429 for
 * one event subscriber too many. Pure: no Workers, Node or Hono.
 */
import { McpEdgeError } from "./errors.js";
import { MAX_SEARCH_QUERY_CHARS } from "./search/config.js";

/**
 * Request bodies (session configs, tool arguments, …): 16 MiB of bytes. Not less: 10 MB
 * tool arguments pass intact through the bridge (test/e2e/bridge.test.ts), a contract.
 */
export const MAX_REQUEST_BODY_BYTES = 16 * 1024 * 1024;
/** Arrays and objects nested in a request body: deeper would overflow JSON.stringify on the way upstream. */
export const MAX_REQUEST_NESTING = 64;
/**
 * A normalized tool result (output + attachment URLs), in characters: a 10 MB binary
 * resource (13.4 M characters of base64) and then some, well under a Worker's 128 MB.
 */
export const MAX_TOOL_RESULT_CHARS = 32 * 1024 * 1024;
/** Live event-stream subscribers per session; each holds a bounded queue of its own. */
export const MAX_EVENT_SUBSCRIBERS = 16;
export { MAX_SEARCH_QUERY_CHARS };

/** How deep arrays and objects nest in `value`, counted without recursion and at most `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest >= limit) return deepest;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, here]);
  }
  return deepest;
}

export function bodyTooLarge(limit = MAX_REQUEST_BODY_BYTES): McpEdgeError {
  return new McpEdgeError("payloadTooLarge", `request body is over ${limit} bytes`, { limit });
}

/** Throws a 400 when a parsed body nests deeper than MAX_REQUEST_NESTING. */
export function checkRequestNesting(value: unknown, limit = MAX_REQUEST_NESTING): void {
  if (nestingDepth(value, limit + 1) > limit) {
    throw new McpEdgeError("badRequest", `request body is nested deeper than ${limit} levels`, { limit });
  }
}

/** Throws a 502 when a normalized result is over MAX_TOOL_RESULT_CHARS. */
export function checkToolResultSize(result: { output: string; attachments: ReadonlyArray<{ url: string; mime: string }> }, limit = MAX_TOOL_RESULT_CHARS): void {
  let size = result.output.length;
  for (const attachment of result.attachments) size += attachment.url.length + attachment.mime.length;
  if (size > limit) throw new McpEdgeError("resultTooLarge", `the tool result is ${size} characters, over the ${limit}-character limit`, { size, limit });
}
