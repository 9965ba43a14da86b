/**
 * The session's part of the HTTP API, served inside its Durable Object. The Worker
 * forwards `/v1/sessions/:id/<rest>` here as `/<rest>`, with the caller's abort
 * signal, so a caller that goes away cancels the upstream request.
 */
import { Hono } from "hono";
import { ApprovalReplyBody, CallToolBody, EndTurnBody, ExecBody, GetPromptBody, ReadResourceBody, SearchToolsBody, ToolsQuery } from "../src/api/schemas.js";
import { McpEdgeError } from "../src/core/errors.js";
import { parseOrThrow } from "../src/core/validation.js";
import { errorResponse, notFound, readJson } from "../src/http/errors.js";
import { McpEndpoint } from "./mcp-endpoint.js";
import type { Session } from "./session.js";

export const SESSION_ID_HEADER = "x-mcp-edge-session-id";
/** Who the request acts for; set by the Worker on every forwarded request, never taken from a caller. */
export const PRINCIPAL_HEADER = "x-mcp-edge-principal";
/** The Worker's public origin, set by the Worker on every forwarded request (OAuth redirect URIs hang off it). */
export const ORIGIN_HEADER = "x-mcp-edge-origin";

/**
 * Request bodies and queries are validated with the API's schemas (`src/api/schemas.ts`);
 * session bodies and server entries by the session itself, with the same schemas, so
 * their errors can name the server. Every route here has an entry in `src/api/routes.ts`.
 */
export function sessionRoutes(session: Session, options: { mcpAllowedHosts?: readonly string[] } = {}) {
  const app = new Hono();
  app.onError((error) => errorResponse(error));
  app.notFound(notFound);

  app.post("/", async (c) => {
    const id = c.req.header(SESSION_ID_HEADER);
    if (!id) throw new McpEdgeError("badRequest", "missing session id");
    const principal = c.req.header(PRINCIPAL_HEADER);
    if (!principal) throw new McpEdgeError("internal", "request reached the session without a principal");
    return c.json(await session.create(id, principal, await readJson(c.req.raw, { optional: true })), 201);
  });
  app.get("/", async (c) => c.json(await session.status()));
  app.delete("/", async (c) => {
    await session.destroy();
    return c.body(null, 204);
  });

  app.put("/servers/:name", async (c) => c.json(await session.putServer(c.req.param("name"), await readJson(c.req.raw))));
  app.delete("/servers/:name", async (c) => {
    await session.deleteServer(c.req.param("name"));
    return c.body(null, 204);
  });
  app.post("/servers/:name/disconnect", async (c) => c.json(await session.disconnectServer(c.req.param("name"))));
  app.post("/servers/:name/connect", async (c) => c.json(await session.connectServer(c.req.param("name"))));
  app.post("/servers/:name/auth", async (c) => {
    const origin = c.req.header(ORIGIN_HEADER);
    if (!origin) throw new McpEdgeError("badRequest", "missing origin");
    return c.json(await session.beginAuthorization(c.req.param("name"), origin));
  });
  app.delete("/servers/:name/auth", async (c) => c.json(await session.signOut(c.req.param("name"))));
  app.post("/servers/:name/debug", async (c) => c.json(await session.debugServer(c.req.param("name"))));

  app.get("/tools", async (c) => {
    const query = parseOrThrow(ToolsQuery, c.req.query());
    await session.requireSession();
    return c.json(await session.discovery.listTools(query));
  });
  app.post("/tools/search", async (c) => {
    const body = parseOrThrow(SearchToolsBody, await readJson(c.req.raw));
    await session.requireSession();
    return c.json(await session.discovery.search(body.query, body.limit, body.turn));
  });
  app.get("/events", async (c) => {
    await session.requireSession();
    const raw = c.req.header("last-event-id") ?? c.req.query("lastEventId");
    const lastEventId = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
    if (raw !== undefined && lastEventId === undefined) throw new McpEdgeError("badRequest", "Last-Event-ID must be an event id (a whole number)");
    return session.events.subscribe(lastEventId, c.req.raw.signal);
  });
  app.post("/turns", async (c) => c.json(await session.startTurn(), 201));
  app.post("/turns/:turnId/end", async (c) => {
    const body = parseOrThrow(EndTurnBody, await readJson(c.req.raw));
    return c.json(await session.endTurn(c.req.param("turnId"), body.status));
  });
  app.get("/approvals", async (c) => c.json(await session.listApprovals()));
  app.post("/approvals/:approvalId", async (c) => {
    const body = parseOrThrow(ApprovalReplyBody, await readJson(c.req.raw));
    return c.json(await session.replyApproval(c.req.param("approvalId"), body));
  });
  app.post("/tools/call", async (c) => {
    const body = parseOrThrow(CallToolBody, await readJson(c.req.raw));
    return c.json(
      await session.callTool(body.name, body.arguments ?? {}, {
        signal: c.req.raw.signal,
        ...(body.turn !== undefined ? { turn: body.turn.id, ...(body.turn.actorId !== undefined ? { actorId: body.turn.actorId } : {}) } : {}),
      }),
    );
  });

  app.post("/exec", async (c) => {
    const body = parseOrThrow(ExecBody, await readJson(c.req.raw));
    return c.json(await session.exec(body, c.req.raw.signal));
  });

  app.get("/resources", async (c) => c.json({ resources: await session.resources(undefined, c.req.raw.signal) }));
  app.get("/resources/templates", async (c) => c.json({ resourceTemplates: await session.resourceTemplates(undefined, c.req.raw.signal) }));
  app.post("/resources/read", async (c) => {
    const body = parseOrThrow(ReadResourceBody, await readJson(c.req.raw));
    return c.json(await session.readResource(body.server, body.uri, c.req.raw.signal));
  });
  app.get("/prompts", async (c) => c.json({ prompts: await session.prompts(c.req.raw.signal) }));
  app.post("/prompts/get", async (c) => {
    const body = parseOrThrow(GetPromptBody, await readJson(c.req.raw));
    return c.json(await session.getPrompt(body.server, body.name, body.arguments, c.req.raw.signal));
  });
  app.get("/instructions", async (c) => c.json(await session.instructions()));

  // The aggregated MCP endpoint (Streamable HTTP): the session as one MCP server.
  const mcp = new McpEndpoint(session, { allowedHosts: options.mcpAllowedHosts ?? [] });
  app.post("/mcp", (c) => mcp.handle(c.req.raw));
  app.get("/mcp", (c) => mcp.handle(c.req.raw));
  app.delete("/mcp", (c) => mcp.handle(c.req.raw));
  return app;
}

/**
 * The session object's request handler: every route but creation first checks that the
 * session exists and belongs to the request's principal (set by the Worker). Another
 * principal's session answers exactly like a missing one (404: existence is not leaked),
 * on every route, including ones added later.
 */
export function ownedSessionRoutes(session: Session, options: { mcpAllowedHosts?: readonly string[] } = {}) {
  const routes = sessionRoutes(session, options);
  return {
    async fetch(request: Request): Promise<Response> {
      if (!(request.method === "POST" && new URL(request.url).pathname === "/")) {
        const principal = request.headers.get(PRINCIPAL_HEADER);
        try {
          if (!principal) throw new McpEdgeError("internal", "request reached the session without a principal");
          await session.requireOwnedBy(principal);
        } catch (error) {
          // Drain the unread body first: answering while the Worker still streams it in fails that stream.
          await request.arrayBuffer().catch(() => undefined);
          return errorResponse(error);
        }
      }
      return routes.fetch(request);
    },
  };
}
