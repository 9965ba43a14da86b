/**
 * The one place where errors become HTTP responses: `{"error":{code,message,data?}}`
 * with the error's status. Anything that is not a McpEdgeError is a 500 whose
 * message says nothing of internals.
 */
import type { Context } from "hono";
import { McpEdgeError, messageOf } from "../core/errors.js";

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

/** Reads a JSON body; a missing or malformed one is a typed 400. */
export async function readJson(request: Request, { optional = false } = {}): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") {
    if (optional) return {};
    throw new McpEdgeError("badRequest", "request body must be JSON");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new McpEdgeError("badRequest", "request body is not valid JSON");
  }
}
