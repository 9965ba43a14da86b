/**
 * The Worker's HTTP API: health, session creation, and forwarding of everything under
 * `/v1/sessions/:id` to that session's Durable Object (with the caller's abort signal).
 */
import { Hono } from "hono";
import { SESSION_ID_HEADER } from "../durable-objects/session-routes.js";
import { McpEdgeError } from "./core/errors.js";
import type { Env } from "./env.js";
import { notFound, onError } from "./http/errors.js";
import { newSessionId, SESSION_ID_PATTERN } from "./http/ids.js";

export const VERSION = "0.1.0";

type AppEnv = { Bindings: Env };

function forward(env: Env, id: string, request: Request, rest: string, headers?: Record<string, string>): Promise<Response> {
  const stub = env.SESSIONS.getByName(id);
  const url = new URL(request.url);
  const target = new URL(`https://session${rest || "/"}${url.search}`);
  const init: RequestInit = { method: request.method, headers: new Headers(request.headers), signal: request.signal };
  for (const [k, v] of Object.entries(headers ?? {})) (init.headers as Headers).set(k, v);
  if (request.method !== "GET" && request.method !== "HEAD") init.body = request.body;
  return stub.fetch(new Request(target, init));
}

export function createApp() {
  const app = new Hono<AppEnv>();
  app.onError(onError);
  app.notFound(notFound);

  app.get("/health", (c) => c.json({ ok: true, version: VERSION }));

  app.post("/v1/sessions", async (c) => {
    const id = newSessionId();
    return forward(c.env, id, c.req.raw, "/", { [SESSION_ID_HEADER]: id });
  });

  app.all("/v1/sessions/:id/*", async (c) => {
    const id = c.req.param("id");
    if (!SESSION_ID_PATTERN.test(id)) throw new McpEdgeError("sessionNotFound", "session not found");
    const prefix = `/v1/sessions/${id}`;
    const rest = new URL(c.req.url).pathname.slice(prefix.length);
    return forward(c.env, id, c.req.raw, rest);
  });
  app.all("/v1/sessions/:id", async (c) => {
    const id = c.req.param("id");
    if (!SESSION_ID_PATTERN.test(id)) throw new McpEdgeError("sessionNotFound", "session not found");
    if (c.req.method === "POST") throw new McpEdgeError("notFound", `no route for POST /v1/sessions/${id}`);
    return forward(c.env, id, c.req.raw, "/");
  });
  return app;
}
