/**
 * The route table of HTTP API v1: every public method and path with its request and
 * response schemas. The OpenAPI document is generated from it, and a test walks the
 * Hono apps (the Worker's and the session's) to prove that every registered route has
 * an entry here and every entry a route. Paths use OpenAPI's `{param}` syntax.
 */
import type { z } from "zod";
import * as S from "./schemas.js";

export type Method = "get" | "post" | "put" | "delete";

/**
 * Which app serves a route: the Worker's router, the session's (behind `/v1/sessions/{id}`),
 * or the OAuth provider library itself (its metadata, token and registration endpoints).
 */
export type Served = "worker" | "session" | "provider";

/**
 * What a route needs: an access token (mcp-edge's own OAuth token or a service token; in
 * local dev none means the principal `local`), a bridge token, or nothing.
 */
export type RouteAuth = "token" | "bridgeToken" | "none";

export interface RouteEntry {
  method: Method;
  /** The public path, `{param}` for parameters. */
  path: string;
  operationId: string;
  summary: string;
  served: Served;
  /** Default `token`. */
  auth?: RouteAuth;
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
    path: "/",
    operationId: "console",
    summary: "The web console (HTML; its script and stylesheet are static files beside it)",
    served: "worker",
    response: { status: 200, description: "text/html with a strict Content-Security-Policy" },
    errors: [404],
  },
  {
    method: "get",
    path: "/health",
    operationId: "health",
    summary: "Liveness and version",
    served: "worker",
    auth: "none",
    response: { status: 200, description: "Alive", schema: S.Health },
    errors: [],
  },
  {
    method: "get",
    path: "/v1/openapi.json",
    operationId: "openApi",
    summary: "This API as an OpenAPI 3.1 document",
    served: "worker",
    auth: "none",
    response: { status: 200, description: "The document", schema: S.OpenApiDocument },
    errors: [],
  },
  {
    method: "get",
    path: "/oauth/callback",
    operationId: "oauthCallback",
    summary:
      "Where the browser returns from a remote server's authorization server: finishes the sign-in, connects the server and answers a small HTML page (errors too, as HTML with their status: 400 bad or used state, 403 denied, 409 server changed, 502 token exchange failed)",
    served: "worker",
    query: S.OAuthCallbackQuery,
    response: { status: 200, description: "text/html: signed in" },
    errors: [],
  },
  {
    method: "get",
    path: "/oauth/client-metadata.json",
    operationId: "oauthClientMetadata",
    summary: "mcp-edge's OAuth client ID metadata document (its URL is the client_id where authorization servers support them)",
    served: "worker",
    response: { status: 200, description: "The document", schema: S.ClientMetadataDocument },
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
    auth: "bridgeToken",
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
    errors: [400, 413, 500],
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
    errors: [400, 413, ...SESSION_ERRORS],
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
    method: "post",
    path: `${SESSION_PREFIX}/servers/{name}/auth`,
    operationId: "authorizeServer",
    summary:
      "Start signing in to an OAuth-protected server: the URL to open in a browser (it returns to GET /oauth/callback, which connects the server). The principal's credentials are reused by its other sessions",
    served: "session",
    response: { status: 200, description: "The authorization URL", schema: S.AuthorizationStarted },
    errors: [400, ...SESSION_ERRORS, 502, 503],
  },
  {
    method: "delete",
    path: `${SESSION_PREFIX}/servers/{name}/auth`,
    operationId: "signOutServer",
    summary: "Sign out: forget the principal's credentials for the server (then it reconnects, usually to needs_auth)",
    served: "session",
    response: { status: 200, description: "The server's status", schema: S.ServerStatus },
    errors: [400, ...SESSION_ERRORS, 503],
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/servers/{name}/debug`,
    operationId: "debugServer",
    summary: "Diagnose a remote server: a hand-made initialize (HTTP status, WWW-Authenticate) and OAuth discovery; stores nothing",
    served: "session",
    response: { status: 200, description: "What happened", schema: S.ServerDebugReport },
    errors: [400, ...SESSION_ERRORS],
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
    errors: [400, 413, ...SESSION_ERRORS],
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/events`,
    operationId: "sessionEvents",
    summary:
      "Server-Sent Events: server.status, tools.changed, tool.started, tool.progress, tool.finished, turn.ended, gap; resumable with Last-Event-ID",
    served: "session",
    response: { status: 200, description: "text/event-stream" },
    errors: [400, ...SESSION_ERRORS, 429],
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
    errors: [400, 413, ...SESSION_ERRORS],
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/approvals`,
    operationId: "listApprovals",
    summary: "Requests waiting for a person: samplings, elicitations, tool calls held by an ask rule",
    served: "session",
    response: { status: 200, description: "Pending approvals, oldest first", schema: S.ApprovalList },
    errors: SESSION_ERRORS,
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/approvals/{approvalId}`,
    operationId: "replyApproval",
    summary: "Answer an approval: once, always (remembered for that server or tool in this session) or reject; accept/decline/cancel for an elicitation",
    served: "session",
    body: S.ApprovalReplyBody,
    response: { status: 200, description: "The approval was answered", schema: S.ApprovalResolved },
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
    errors: [400, 413, 404, 499, 500, 502, 504],
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
    errors: [400, 413, ...SESSION_ERRORS, 502, 504],
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
    errors: [400, 413, ...SESSION_ERRORS, 502, 504],
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
  {
    method: "get",
    path: "/oauth/authorize",
    operationId: "authorize",
    summary:
      "OAuth authorization endpoint (code + PKCE S256): the provider validates the request, then the sign-in page (an HTML form: principal and password from SIGN_IN_USERS)",
    served: "worker",
    auth: "none",
    response: { status: 200, description: "The sign-in page (text/html); a request it may not answer to the client is a 400, else a redirect with error=" },
    errors: [400, 503],
  },
  {
    method: "post",
    path: "/oauth/authorize",
    operationId: "authorizeSignIn",
    summary:
      "The sign-in form (application/x-www-form-urlencoded: principal, password, decision=allow|deny), posted to the same URL and query as the GET",
    served: "worker",
    auth: "none",
    response: { status: 302, description: "Back to the client's redirect_uri with code, state and iss (or error=access_denied); a failed sign-in is the page again with 401" },
    errors: [400, 401, 503],
  },
  {
    method: "post",
    path: "/oauth/token",
    operationId: "token",
    summary: "OAuth token endpoint (authorization_code with code_verifier, refresh_token) and revocation (RFC 7009); form-encoded, RFC 6749 answers",
    served: "provider",
    auth: "none",
    response: { status: 200, description: "{access_token, token_type, expires_in, refresh_token, scope, resource}" },
    errors: [400, 401],
  },
  {
    method: "post",
    path: "/oauth/register",
    operationId: "registerClient",
    summary: "OAuth dynamic client registration (RFC 7591): JSON client metadata with redirect_uris",
    served: "provider",
    auth: "none",
    response: { status: 201, description: "The registered client (client_id, and client_secret unless token_endpoint_auth_method is none)" },
    errors: [400],
  },
  {
    method: "get",
    path: "/.well-known/oauth-authorization-server",
    operationId: "authorizationServerMetadata",
    summary: "OAuth authorization server metadata (RFC 8414)",
    served: "provider",
    auth: "none",
    response: { status: 200, description: "issuer, authorization_endpoint, token_endpoint, registration_endpoint, code_challenge_methods_supported, …" },
    errors: [],
  },
  {
    method: "get",
    path: "/.well-known/oauth-protected-resource/v1",
    operationId: "protectedResourceMetadata",
    summary: "OAuth protected resource metadata (RFC 9728) of the API (`<origin>/v1`), named by every 401's WWW-Authenticate",
    served: "provider",
    auth: "none",
    response: { status: 200, description: "resource, authorization_servers, bearer_methods_supported" },
    errors: [],
  },
  {
    method: "post",
    path: `${SESSION_PREFIX}/mcp`,
    operationId: "mcpPost",
    summary:
      "Aggregated MCP endpoint (Streamable HTTP): JSON-RPC messages to the session as one MCP server; an initialize opens a downstream MCP session (Mcp-Session-Id); answers JSON-RPC as SSE, 202 for notifications; unknown Mcp-Session-Id → 404",
    served: "session",
    query: S.McpEndpointQuery,
    response: { status: 200, description: "text/event-stream with the JSON-RPC response(s) and related notifications" },
    errors: [400, 404, 500],
  },
  {
    method: "get",
    path: `${SESSION_PREFIX}/mcp`,
    operationId: "mcpStream",
    summary: "Aggregated MCP endpoint: the downstream session's standalone SSE stream (list_changed, logs, server→client requests)",
    served: "session",
    response: { status: 200, description: "text/event-stream" },
    errors: [400, 404, 500],
  },
  {
    method: "delete",
    path: `${SESSION_PREFIX}/mcp`,
    operationId: "mcpDelete",
    summary: "Aggregated MCP endpoint: end the downstream MCP session named by Mcp-Session-Id",
    served: "session",
    response: { status: 200, description: "Ended" },
    errors: [400, 404, 500],
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
