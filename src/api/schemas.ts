/**
 * The HTTP API's shapes in one place, as zod schemas: what the routes validate requests
 * with, what they answer, and what the OpenAPI document and the typed client are made
 * from. Pure: zod and the pure core only (no Workers, Node or Hono), so the client's type
 * declarations can carry these types anywhere. Request schemas are strict (unknown keys
 * are a 400 that names them); response schemas are open, so a client built against this
 * version keeps working when an answer gains a field.
 */
import { z } from "zod";
import { ServerOfferSchema } from "../core/bridge-protocol.js";
import { LocalServerConfigSchema, RemoteServerConfigSchema, ServerConfigSchema, ServerOverrideSchema, SessionBodySchema } from "../core/config.js";
import { MAX_CODE_CHARS, MAX_TIMEOUT_MS } from "../core/codemode/limits.js";
import { SEARCH_MAX_LIMIT } from "../core/discovery/meta-tools.js";
import { MAX_SEARCH_QUERY_CHARS } from "../core/search/config.js";

// ── Requests ───────────────────────────────────────────────────────────────

/** `{NAME: ServerConfig}` and `roots`; each server entry is then parsed as a {@link ServerConfig}. */
export const SessionBody = SessionBodySchema;
/** One server entry (opencode-compatible): remote, local (through a bridge), or an override of a deployment-defined server. */
export const ServerConfig = ServerConfigSchema;
export const RemoteServerConfig = RemoteServerConfigSchema;
export const LocalServerConfig = LocalServerConfigSchema;
export const ServerOverride = ServerOverrideSchema;

/** A turn reference: its id, or `{id, actorId?}` (the turn-lifecycle shape). Parses to the id. */
export const TurnRef = z
  .union([z.string().min(1), z.strictObject({ id: z.string().min(1), actorId: z.string().optional() })])
  .transform((t) => (typeof t === "string" ? t : t.id));

/** The same reference, keeping the actor (tool calls pass it on to turn-aware servers). */
export const TurnRefWithActor = z
  .union([z.string().min(1), z.strictObject({ id: z.string().min(1), actorId: z.string().optional() })])
  .transform((t) => (typeof t === "string" ? { id: t } : t));

export const CallToolBody = z.strictObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
  turn: TurnRefWithActor.optional(),
});

export const EndTurnBody = z.strictObject({ status: z.enum(["completed", "cancelled", "error"]) });
export const TurnCreated = z.object({ id: z.string() });
export const TurnEnded = z.object({
  id: z.string(),
  status: z.enum(["completed", "cancelled", "error"]),
  notified: z.array(z.string()),
  timedOut: z.array(z.string()),
  failed: z.array(z.string()),
});

export const SearchToolsBody = z.strictObject({
  query: z.string().min(1).max(MAX_SEARCH_QUERY_CHARS),
  limit: z.number().int().min(1).max(SEARCH_MAX_LIMIT).optional(),
  turn: TurnRef.optional(),
});

const count = z.coerce.number().int().min(0).max(100_000_000);

/** The query of `GET /tools`. Absent `mode` means "full": the v1 contract lists every tool. */
export const ToolsQuery = z.strictObject({
  mode: z.enum(["auto", "full", "search", "code"]).default("full"),
  contextWindow: count.min(1).optional(),
  usedTokens: count.optional(),
  turn: z.string().min(1).optional(),
});

/**
 * The query of the aggregated MCP endpoint (`/v1/sessions/:id/mcp`), read when a downstream
 * session initializes: how its tools are listed (default `auto`: full, or the search
 * meta-tools past the threshold).
 */
export const McpEndpointQuery = z.strictObject({
  mode: z.enum(["auto", "full", "search"]).optional(),
  contextWindow: count.min(1).optional(),
});

/** Bridge ids, as the bridge CLI's `--id` accepts them. */
export const BRIDGE_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The query of the bridges' WebSocket upgrade (`GET /v1/bridges/connect`). */
export const BridgeConnectQuery = z.object({ bridge: z.string().regex(BRIDGE_ID_PATTERN) });

/** A person's answer to an approval: `once`/`always`/`reject` for samplings and tool calls, `accept` (with content)/`decline`/`cancel` for elicitations. */
export const ApprovalReplyBody = z.union([
  z.strictObject({ reply: z.enum(["once", "always", "reject"]) }),
  z.strictObject({ reply: z.literal("accept"), content: z.record(z.string(), z.unknown()).optional() }),
  z.strictObject({ reply: z.enum(["decline", "cancel"]) }),
]);

/**
 * The query of `GET /oauth/callback` (RFC 6749 §4.1.2): `code` and `state`, or `error`.
 * Open: authorization servers add parameters (`iss`, `session_state`).
 */
export const OAuthCallbackQuery = z.looseObject({
  code: z.string().max(2048).optional(),
  state: z.string().max(256).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(1024).optional(),
});

export const ReadResourceBody = z.strictObject({ server: z.string().min(1), uri: z.string().min(1) });

export const GetPromptBody = z.strictObject({
  server: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.string()).optional(),
});

/** `POST /exec`: a script (plain JavaScript, the body of an async function) and its wall time. */
export const ExecBody = z.strictObject({
  code: z.string().min(1).max(MAX_CODE_CHARS),
  timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional(),
});

// ── Responses ──────────────────────────────────────────────────────────────

export const Health = z.object({ ok: z.literal(true), version: z.string() });

/** A server's state as the API reports it. */
export const ServerStatus = z.object({
  status: z.enum(["connected", "disabled", "failed", "needs_auth", "needs_client_registration"]),
  error: z.string().optional(),
  tools: z.number().int().optional(),
});

/** Sampling usage of one server in this session. */
export const SamplingUsage = z.object({ requests: z.number().int(), inputTokens: z.number().int(), outputTokens: z.number().int() });

export const SessionInfo = z.object({
  id: z.string(),
  servers: z.record(z.string(), ServerStatus),
  /** Per server, once it has sampled. */
  usage: z.record(z.string(), SamplingUsage).optional(),
});

/** A request waiting for a person. `metadata` previews it (never whole content, never secrets). */
export const Approval = z.object({
  id: z.string(),
  kind: z.enum(["sampling", "tool", "elicitation"]),
  server: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
});

export const ApprovalList = z.object({ approvals: z.array(Approval) });

export const ApprovalResolved = z.object({ id: z.string(), kind: z.enum(["sampling", "tool", "elicitation"]), server: z.string(), reply: z.string() });

/** One model-facing tool: `name` is what the model calls, `server`/`tool` where it goes. */
export const ApiTool = z.object({
  name: z.string(),
  server: z.string(),
  tool: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
});

/** `code`: a single `execute` tool whose description declares the tools as TypeScript (code mode). */
export const ToolList = z.object({ mode: z.enum(["full", "search", "code"]), tools: z.array(ApiTool) });

export const Attachment = z.object({ mime: z.string(), url: z.string() });

/** A normalized `tools/call` result; a tool error is `isError: true` with HTTP 200. */
export const CallResult = z.object({
  output: z.string(),
  attachments: z.array(Attachment),
  metadata: z.record(z.string(), z.unknown()),
  isError: z.boolean(),
});

/** One tool call a script made: its model-facing name, duration, and whether it failed. */
export const ExecCall = z.object({ name: z.string(), ms: z.number(), isError: z.boolean() });

/**
 * A script's outcome (HTTP 200 even when the script failed): `result` is what it returned
 * (JSON; cut with a `[truncated: …]` marker past the output budget), `logs` its console
 * lines, `calls` every tool call it made, `error` what ended it early.
 */
export const ExecResult = z.object({
  result: z.unknown().optional(),
  logs: z.array(z.string()),
  calls: z.array(ExecCall),
  error: z.object({ message: z.string(), stack: z.string().optional() }).optional(),
});

export const SearchResult = z.object({ name: z.string(), server: z.string(), description: z.string(), score: z.number() });

export const SearchResults = z.object({
  results: z.array(SearchResult),
  /** With a `turn`: every tool loaded for that turn so far. */
  loaded: z.array(z.string()).optional(),
});

export const ResourceList = z.object({ resources: z.array(z.looseObject({ uri: z.string(), name: z.string(), server: z.string() })) });

export const ResourceTemplateList = z.object({
  resourceTemplates: z.array(z.looseObject({ uriTemplate: z.string(), name: z.string(), server: z.string() })),
});

/** The server's own `resources/read` result. */
export const ReadResourceResult = z.looseObject({ contents: z.array(z.looseObject({ uri: z.string() })) });

export const PromptList = z.object({ prompts: z.array(z.looseObject({ name: z.string(), server: z.string() })) });

/** The server's own `prompts/get` result. */
export const GetPromptResult = z.looseObject({
  description: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.enum(["user", "assistant"]), content: z.unknown() })),
});

export const Instructions = z.object({
  instructions: z.string(),
  servers: z.array(z.object({ server: z.string(), instructions: z.string() })),
});

/** `POST …/servers/:name/auth`: where to send the user's browser. */
export const AuthorizationStarted = z.object({ authorizationUrl: z.string() });

/** `POST …/servers/:name/debug`: what a hand-made `initialize` and OAuth discovery found (nothing stored). */
export const ServerDebugReport = z.object({
  url: z.string(),
  initialize: z.object({
    status: z.number().int().optional(),
    contentType: z.string().optional(),
    wwwAuthenticate: z.string().optional(),
    error: z.string().optional(),
  }),
  challenge: z.object({ scope: z.string().optional(), error: z.string().optional(), resourceMetadataUrl: z.string().optional() }).optional(),
  discovery: z
    .object({
      resourceMetadata: z.unknown().optional(),
      authorizationServerUrl: z.string().optional(),
      authorizationServerMetadata: z.unknown().optional(),
      dynamicRegistration: z.boolean(),
      clientIdMetadataDocumentSupported: z.boolean(),
      error: z.string().optional(),
    })
    .optional(),
  /** The principal holds an access token for this server. */
  credentials: z.boolean(),
});

/** mcp-edge's OAuth client ID metadata document (`GET /oauth/client-metadata.json`). */
export const ClientMetadataDocument = z.looseObject({
  client_id: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  token_endpoint_auth_method: z.string(),
});

export const BridgeSummary = z.object({
  id: z.string(),
  connectedAt: z.string(),
  servers: z.array(ServerOfferSchema),
  client: z.object({ name: z.string(), version: z.string() }).optional(),
});

export const BridgeList = z.object({ bridges: z.array(BridgeSummary) });

/** Every 4xx/5xx: `code` is one of the documented codes (badRequest, sessionNotFound, toolNotFound, timeout, …). */
export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), data: z.unknown().optional() }),
});

/** `GET /v1/openapi.json`: an OpenAPI 3.1 document. */
export const OpenApiDocument = z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });

// ── Types ──────────────────────────────────────────────────────────────────

/** What a caller sends (before defaults and transforms). */
export type SessionBodyInput = z.input<typeof SessionBody>;
export type ServerConfigInput = z.input<typeof ServerConfig>;
export type TurnRefInput = z.input<typeof TurnRef>;
export type CallToolInput = z.input<typeof CallToolBody>;
export type SearchToolsInput = z.input<typeof SearchToolsBody>;
export type ExecInput = z.input<typeof ExecBody>;
export type ToolsQueryInput = z.input<typeof ToolsQuery>;
export type ReadResourceInput = z.input<typeof ReadResourceBody>;
export type GetPromptInput = z.input<typeof GetPromptBody>;
export type EndTurnInput = z.input<typeof EndTurnBody>;
export type ApprovalReplyInput = z.input<typeof ApprovalReplyBody>;
export type Approval = z.output<typeof Approval>;
export type ApprovalList = z.output<typeof ApprovalList>;
export type ApprovalResolved = z.output<typeof ApprovalResolved>;
export type SamplingUsage = z.output<typeof SamplingUsage>;
export type TurnCreated = z.output<typeof TurnCreated>;
export type TurnEnded = z.output<typeof TurnEnded>;

export type Health = z.output<typeof Health>;
export type ServerStatus = z.output<typeof ServerStatus>;
export type SessionInfo = z.output<typeof SessionInfo>;
export type ApiTool = z.output<typeof ApiTool>;
export type ToolList = z.output<typeof ToolList>;
export type Attachment = z.output<typeof Attachment>;
export type CallResult = z.output<typeof CallResult>;
export type ExecCall = z.output<typeof ExecCall>;
export type ExecResult = z.output<typeof ExecResult>;
export type SearchResult = z.output<typeof SearchResult>;
export type SearchResults = z.output<typeof SearchResults>;
export type ResourceList = z.output<typeof ResourceList>;
export type ResourceTemplateList = z.output<typeof ResourceTemplateList>;
export type ReadResourceResult = z.output<typeof ReadResourceResult>;
export type PromptList = z.output<typeof PromptList>;
export type GetPromptResult = z.output<typeof GetPromptResult>;
export type Instructions = z.output<typeof Instructions>;
export type BridgeSummary = z.output<typeof BridgeSummary>;
export type AuthorizationStarted = z.output<typeof AuthorizationStarted>;
export type ServerDebugReport = z.output<typeof ServerDebugReport>;
export type ClientMetadataDocument = z.output<typeof ClientMetadataDocument>;
export type BridgeList = z.output<typeof BridgeList>;
export type ErrorBody = z.output<typeof ErrorBody>;
export type OpenApiDocument = z.output<typeof OpenApiDocument>;
