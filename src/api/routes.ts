/**
 * The route table of HTTP API v1: every public method and path with its request and
 * response schemas. The OpenAPI document is generated from it, and a test walks the
 * Hono apps (the Worker's and the session's) to prove that every registered route has
 * an entry here and every entry a route. Paths use OpenAPI's `{param}` syntax.
 */
import type { z } from "zod";
import * as S from "./schemas.js";

export type Method = "get" | "post" | "put" | "delete";

/** Which Hono app serves a route: the Worker's router, or the session's (behind `/v1/sessions/{id}`). */
export type Served = "worker" | "session";

export interface RouteEntry {
  method: Method;
  /** The public path, `{param}` for parameters. */
  path: string;
  operationId: string;
  summary: string;
  served: Served;
  /** The query object (its properties become query parameters). */
  query?: z.ZodObject;
  body?: z.ZodType;
  /** An absent or empty body counts as `{}`. */
  bodyOptional?: true;
  /** Success status and its body schema (undefined: no body). */
  response: { status: number; description: string; schema?: z.ZodType };
  /** HTTP statuses of the typed errors this route documents (all answer {@link S.ErrorBody}). */
  errors: number[];
}

/** Where the Worker mounts the session app: `/v1/sessions/{id}` + the session route's path. */
export const SESSION_PREFIX = "/v1/sessions/{id}";

/** The public path of a session-app route; `POST /` is reached as `POST /v1/sessions` (the Worker mints the id). */
export function sessionPublicPath(method: Method, path: string): string {
  if (method === "post" && path === "/") return "/v1/sessions";
  return path === "/" ? SESSION_PREFIX : `${SESSION_PREFIX}${path}`;
}

const SESSION_ERRORS = [404, 500];

export const ROUTES: readonly RouteEntry[] = [
  {
    method: "get",
    path: "/health",
    operationId: "health",
    summary: "Liveness and version",
    served: "worker",
    response: { status: 200, description: "Alive", schema: S.Health },
    errors: [],
  },
  {
    method: "get",
    path: "/v1/openapi.json",
    operationId: "openApi",
    summary: "This API as an OpenAPI 3.1 document",
    served: "worker",
    response: { status: 200, description: "The document", schema: S.OpenApiDocument },
    errors: [],
  },
  {
    method: "get",
    path: "/v1/bridges",
    operationId: "listBridges",
    summary: "The connected bridges and the servers they offer",
    served: "worker",
    response: { status: 200, description: "Connected bridges", schema: S.BridgeList },
    errors: [],
  },
  {
    method: "get",
    path: "/v1/bridges/connect",
    operationId: "connectBridge",
    summary: "A bridge dials in: WebSocket upgrade with `Authorization: Bearer <bridge token>` and `?bridge=<id>`",
    served: "worker",
    query: S.BridgeConnectQuery,
    response: { status: 101, description: "Switching to the bridge's WebSocket (wire protocol v1)" },
    errors: [400, 401],
  },
  {
    method: "post",
    path: "/v1/sessions",
    operationId: "createSession",
    summary: "Create a session; connects every enabled server concurrently and answers once each settled",
    served: "session",
    body: S.SessionBody,
    bodyOptional: true,
    response: { status: 201, description: "The new session and its servers' statuses", schema: S.SessionInfo },
    errors: [400, 500],
  },
  {
    method: "get",
    path: SESSION_PREFIX,
    operationId: "getSession",
    summary: "A session and its servers' statuses",
    served: "session",
    response: { status: 200, description: "The session", schema: S.SessionInfo },
    errors: SESSION_ERRORS,
  },
  {
    method: "delete",
    path: SESSION_PREFIX,
    operationId: "deleteSession",
    summary: "Close every connection (in-flight calls are cancelled) and forget the session",
    served: "session",
    response: { status: 204, description: "Deleted" },
    errors: SESSION_ERRORS,
  },
  {
    method: "put",
    path: `${SESSION_PREFIX}/servers/{name}`,
    operationId: "putServer",
    summary: "Add or replace a server, then connect it",
    served: "session",
    body: S.ServerConfig,
    response: { status: 200, description: "The server's status", schema: S.ServerStatus },
    errors: [400, ...SESSION_ERRORS],
  },
  {
    method: "delete",
    path: `${SESSION_PREFIX}/servers/{name}`,
    operationId: "deleteServer",
    summary: "Remove a server from the session",
    served: "session",
    response: { status: 204, description: "Removed" },
    errors: SESSION_ERRORS,
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/servers/{name}/connect`,
    operationId: "connectServer",
    summary: "Connect (or reconnect) a server",
    served: "session",
    response: { status: 200, description: "The server's status", schema: S.ServerStatus },
    errors: SESSION_ERRORS,
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/servers/{name}/disconnect`,
    operationId: "disconnectServer",
    summary: "Disconnect a server (its status becomes disabled)",
    served: "session",
    response: { status: 200, description: "The server's status", schema: S.ServerStatus },
    errors: SESSION_ERRORS,
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/tools`,
    operationId: "listTools",
    summary: "The model-facing tools: every tool (full) or the search meta-tools plus the tools loaded for the turn (search)",
    served: "session",
    query: S.ToolsQuery,
    response: { status: 200, description: "The tools and the mode they were listed in", schema: S.ToolList },
    errors: [400, ...SESSION_ERRORS],
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/tools/search`,
    operationId: "searchTools",
    summary: "Rank the catalog's tools for a query; with a turn, the hits are loaded for that turn",
    served: "session",
    body: S.SearchToolsBody,
    response: { status: 200, description: "Ranked tools", schema: S.SearchResults },
    errors: [400, ...SESSION_ERRORS],
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/events`,
    operationId: "sessionEvents",
    summary:
      "Server-Sent Events: server.status, tools.changed, tool.started, tool.progress, tool.finished, turn.ended, gap; resumable with Last-Event-ID",
    served: "session",
    response: { status: 200, description: "text/event-stream" },
    errors: [400, ...SESSION_ERRORS],
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/turns`,
    operationId: "startTurn",
    summary: "Start a turn: a ULID to pass as `turn` on tool calls and listings",
    served: "session",
    response: { status: 201, description: "The new turn", schema: S.TurnCreated },
    errors: SESSION_ERRORS,
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/turns/{turnId}/end`,
    operationId: "endTurn",
    summary: "End a turn: turn-aware servers get notifications/io.mcp-edge/turn-lifecycle (at most 1 s each)",
    served: "session",
    body: S.EndTurnBody,
    response: { status: 200, description: "Which servers were told", schema: S.TurnEnded },
    errors: [400, ...SESSION_ERRORS],
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/tools/call`,
    operationId: "callTool",
    summary: "Call a tool by its model-facing name; a tool error is isError:true with HTTP 200",
    served: "session",
    body: S.CallToolBody,
    response: { status: 200, description: "The normalized result", schema: S.CallResult },
    errors: [400, 404, 499, 500, 502, 504],
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/exec`,
    operationId: "exec",
    summary: "Code mode: run a script that calls the session's tools (`tools.<name>(args)`, `callTool(name, args)`) in a sandbox; a script error is `error` with HTTP 200",
    served: "session",
    body: S.ExecBody,
    response: { status: 200, description: "The script's result, logs, tool calls and error", schema: S.ExecResult },
    errors: [400, 404, 499, 500],
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/resources`,
    operationId: "listResources",
    summary: "Every connected server's resources",
    served: "session",
    response: { status: 200, description: "Resources, each with its server", schema: S.ResourceList },
    errors: [...SESSION_ERRORS, 502],
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/resources/templates`,
    operationId: "listResourceTemplates",
    summary: "Every connected server's resource templates",
    served: "session",
    response: { status: 200, description: "Resource templates, each with its server", schema: S.ResourceTemplateList },
    errors: [...SESSION_ERRORS, 502],
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/resources/read`,
    operationId: "readResource",
    summary: "Read one resource from a server",
    served: "session",
    body: S.ReadResourceBody,
    response: { status: 200, description: "The server's resources/read result", schema: S.ReadResourceResult },
    errors: [400, ...SESSION_ERRORS, 502, 504],
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/prompts`,
    operationId: "listPrompts",
    summary: "Every connected server's prompts",
    served: "session",
    response: { status: 200, description: "Prompts, each with its server", schema: S.PromptList },
    errors: [...SESSION_ERRORS, 502],
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/prompts/get`,
    operationId: "getPrompt",
    summary: "Get one prompt from a server",
    served: "session",
    body: S.GetPromptBody,
    response: { status: 200, description: "The server's prompts/get result", schema: S.GetPromptResult },
    errors: [400, ...SESSION_ERRORS, 502, 504],
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/instructions`,
    operationId: "instructions",
    summary: "Each connected server's instructions, wrapped for a system prompt",
    served: "session",
    response: { status: 200, description: "The instructions", schema: S.Instructions },
    errors: SESSION_ERRORS,
  },
];

/** Path parameters of an OpenAPI path, in order (`/v1/sessions/{id}/servers/{name}` → id, name). */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/** OpenAPI `{param}` → Hono `:param`. */
export function toHonoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}
