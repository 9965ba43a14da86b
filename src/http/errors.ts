/**
 * The one place where errors become HTTP responses: `{"error":{code,message,data?}}`
 * with the error's status. Anything that is not a McpEdgeError is a 500 whose
 * message says nothing of internals.
 */
import type { Context } from "hono";
import { McpEdgeError, messageOf } from "../core/errors.js";
import { bodyTooLarge, checkRequestNesting, MAX_REQUEST_BODY_BYTES } from "../core/limits.js";

export function errorResponse(error: unknown): Response {
  const typed = McpEdgeError.is(error) ? error : new McpEdgeError("internal", "internal error");
  if (!McpEdgeError.is(error)) console.error("unexpected error:", messageOf(error));
  return Response.json(typed.toJSON(), { status: typed.status });
}

export function onError(error: Error, _c: Context): Response {
  return errorResponse(error);
}

export function routeNotFound(method: string, url: string): Response {
  return errorResponse(new McpEdgeError("notFound", `no route for ${method} ${new URL(url).pathname}`));
}

export function notFound(c: Context): Response {
  return routeNotFound(c.req.method, c.req.url);
}

/**
 * Reads a JSON body; a missing or malformed one is a typed 400, one over `maxBytes`
 * (MAX_REQUEST_BODY_BYTES) a 413 — refused from its Content-Length when it says so,
 * otherwise while reading, so an oversized body is never held whole — and one nested
 * deeper than MAX_REQUEST_NESTING a 400.
 */
export async function readJson(request: Request, { optional = false, maxBytes = MAX_REQUEST_BODY_BYTES } = {}): Promise<unknown> {
  const text = await readText(request, maxBytes);
  if (text.trim() === "") {
    if (optional) return {};
    throw new McpEdgeError("badRequest", "request body must be JSON");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new McpEdgeError("badRequest", "request body is not valid JSON");
  }
  checkRequestNesting(value);
  return value;
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw bodyTooLarge(maxBytes);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge(maxBytes);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}
