/**
 * The Worker's HTTP API: the web console page, health, the OpenAPI document, bridges, the sign-in page,
 * session creation, and forwarding of everything under `/v1/sessions/:id` to that
 * session's Durable Object. Forwarding is the hot path of every tool call, so it skips
 * the router: one regex, one Request copy (which carries the caller's abort signal, so a
 * caller that goes away cancels the upstream call). Every route has an entry in
 * `src/api/routes.ts`. Who the caller is was settled before (src/auth/gate.ts): the
 * principal arrives as an argument and travels to the session object in an internal
 * header that the Worker always overwrites, so a caller can never choose it.
 */
import { Hono } from "hono";
import { ORIGIN_HEADER, PRINCIPAL_HEADER, SESSION_ID_HEADER } from "../durable-objects/session-routes.js";
import { oauthCallback, oauthClientMetadata } from "./http/oauth-routes.js";
import { CALLBACK_PATH, CLIENT_METADATA_PATH } from "./core/oauth/client-metadata.js";
import { openApiDocument } from "./api/openapi.js";
import { BridgeConnectQuery, type OpenApiDocument } from "./api/schemas.js";
import { McpEdgeError, messageOf } from "./core/errors.js";
import { bodyTooLarge, MAX_REQUEST_BODY_BYTES } from "./core/limits.js";
import { BRIDGE_ID_HEADER } from "../durable-objects/bridge-hub.js";
import { registerAuthorize } from "./auth/authorize.js";
import { bridgePrincipal, type Env } from "./env.js";
import { serveConsole } from "./http/console.js";
import { errorResponse, notFound, onError, routeNotFound } from "./http/errors.js";
import { newSessionId, SESSION_ID_PATTERN } from "./http/ids.js";

export const VERSION = "0.1.0";

/** `/v1/sessions/<id>` plus the rest of the path, for ids that we mint. */
const SESSION_PATH = /^\/v1\/sessions\/([^/]+)(\/.*)?$/;

function forward(env: Env, id: string, request: Request, url: URL, rest: string, principal: string): Promise<Response> {
  const target = `https://session${rest}${url.search}`;
  const copy = new Request(target, request);
  copy.headers.set(PRINCIPAL_HEADER, principal);
  copy.headers.set(ORIGIN_HEADER, url.origin);
  return env.SESSIONS.getByName(id).fetch(copy);
}

/** The authenticated principal of each request the router handles (set by createApp's fetch). */
const principals = new WeakMap<Request, string>();

function requirePrincipal(request: Request): string {
  const principal = principals.get(request);
  if (principal === undefined) throw new McpEdgeError("unauthorized", "an access token is required (Authorization: Bearer …)");
  return principal;
}

/** Built on first request, once per isolate. */
let openApi: OpenApiDocument | undefined;

/** The Worker's router (everything but the forwarding); exported so a test can walk its routes. */
export function createRouter() {
  const app = new Hono<{ Bindings: Env }>();
  app.onError(onError);
  app.notFound(notFound);
  app.get("/", (c) => serveConsole(c.env.ASSETS, c.req.raw));
  app.get("/health", (c) => c.json({ ok: true, version: VERSION }));
  app.get("/v1/openapi.json", (c) => c.json((openApi ??= openApiDocument({ version: VERSION }))));
  // A bridge dials in: WebSocket upgrade, authenticated by its bearer token.
  app.get("/v1/bridges/connect", (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw new McpEdgeError("badRequest", "expected a WebSocket upgrade");
    const token = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim();
    const principal = bridgePrincipal(c.env, token);
    if (!principal) throw new McpEdgeError("unauthorized", "a valid bridge token is required (Authorization: Bearer …)");
    const query = BridgeConnectQuery.safeParse({ bridge: c.req.query("bridge") ?? "" });
    if (!query.success) throw new McpEdgeError("badRequest", "bridge must be 1-64 characters of [a-zA-Z0-9_-]");
    const bridge = query.data.bridge;
    const request = new Request("https://hub/connect", c.req.raw);
    request.headers.set(BRIDGE_ID_HEADER, bridge);
    return c.env.BRIDGES.getByName(principal).fetch(request);
  });
  // OAuth to remote MCP servers: where the browser comes back, and mcp-edge's client ID metadata document.
  app.get(CALLBACK_PATH, (c) => oauthCallback(c.env, new URL(c.req.url)));
  app.get(CLIENT_METADATA_PATH, (c) => oauthClientMetadata(c.env, new URL(c.req.url)));
  app.get("/v1/bridges", async (c) => c.json({ bridges: await c.env.BRIDGES.getByName(requirePrincipal(c.req.raw)).list() }));

  app.post("/v1/sessions", (c) => {
    const principal = requirePrincipal(c.req.raw);
    const id = newSessionId();
    const request = new Request("https://session/", c.req.raw);
    request.headers.set(SESSION_ID_HEADER, id);
    request.headers.set(PRINCIPAL_HEADER, principal);
    return c.env.SESSIONS.getByName(id).fetch(request);
  });
  registerAuthorize(app);
  return app;
}

/**
 * The session's object failed under a request (it was evicted or restarted mid-call, or is
 * overloaded): the request is lost, the session's state is not, so the caller may retry.
 */
function sessionInterrupted(error: unknown): McpEdgeError {
  if (McpEdgeError.is(error)) return error;
  console.warn("session object interrupted a request:", messageOf(error).slice(0, 200));
  return new McpEdgeError("sessionUnavailable", "the session was interrupted while answering (its object restarted); its state is kept, retry the request");
}

export function createApp() {
  const router = createRouter();
  return {
    /** `principal`: who the request acts for, or undefined on public routes (src/auth/gate.ts decides). */
    fetch(request: Request, env: Env, ctx: ExecutionContext, principal: string | undefined): Response | Promise<Response> {
      // A body that says it is over the cap is refused here, before it travels to an object.
      if (Number(request.headers.get("content-length")) > MAX_REQUEST_BODY_BYTES) return errorResponse(bodyTooLarge());
      const url = new URL(request.url);
      const match = SESSION_PATH.exec(url.pathname);
      if (!match) {
        if (principal !== undefined) principals.set(request, principal);
        return router.fetch(request, env, ctx);
      }
      if (principal === undefined) return errorResponse(new McpEdgeError("unauthorized", "an access token is required (Authorization: Bearer …)"));
      const [, id, rest = "/"] = match;
      if (!SESSION_ID_PATTERN.test(id!)) return errorResponse(new McpEdgeError("sessionNotFound", "session not found"));
      if (rest === "/" && request.method === "POST") return routeNotFound(request.method, request.url);
      // The caller's own header never names a session: only POST /v1/sessions sets it.
      if (request.headers.has(SESSION_ID_HEADER)) {
        const copy = new Request(request);
        copy.headers.delete(SESSION_ID_HEADER);
        request = copy;
      }
      return forward(env, id!, request, url, rest, principal).catch((error: unknown) => errorResponse(sessionInterrupted(error)));
    },
  };
}
