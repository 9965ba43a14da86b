/**
 * `mcp-edge/client`: a small typed client for HTTP API v1. Its only runtime dependency
 * is `fetch` (injectable), so it runs in Node, browsers, Workers and Deno alike; the
 * request and answer types come from the API's zod schemas (types only, nothing of zod
 * is loaded). A non-success answer throws {@link McpEdgeApiError} with the status and
 * the API's error code; every method takes an `AbortSignal` (aborting it cancels the
 * upstream MCP request too).
 */
import type {
  ApprovalList,
  ApprovalReplyInput,
  ApprovalResolved,
  AuthorizationStarted,
  BridgeList,
  CallResult,
  CallToolInput,
  EndTurnInput,
  ExecInput,
  ExecResult,
  GetPromptInput,
  GetPromptResult,
  Health,
  Instructions,
  OpenApiDocument,
  PromptList,
  ReadResourceInput,
  ReadResourceResult,
  ResourceList,
  ResourceTemplateList,
  SearchResults,
  SearchToolsInput,
  ServerConfigInput,
  ServerDebugReport,
  ServerStatus,
  SessionBodyInput,
  SessionInfo,
  ToolList,
  TurnCreated,
  TurnEnded,
} from "../api/schemas.js";
import { createSseParser } from "../core/sse-parser.js";
import { apiError, McpEdgeApiError } from "./errors.js";

export { McpEdgeApiError, type ApiErrorCode } from "./errors.js";
export type * from "../api/schemas.js";

/** `fetch` or anything shaped like it (a Worker's service binding, a test double). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface McpEdgeClientOptions {
  /** Where mcp-edge answers, e.g. `http://127.0.0.1:8787` (a path prefix is kept). */
  baseUrl: string;
  /** Defaults to the global `fetch`. */
  fetch?: FetchLike;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /**
   * An access token: one from mcp-edge's own OAuth provider, or a service token
   * (`SERVICE_TOKENS`). Sent as `Authorization: Bearer …`. A function is asked before
   * every request, so it can hand out a refreshed token. Without one, a deployment
   * answers 401 (local dev acts as the principal `local`).
   */
  token?: string | (() => string | Promise<string>);
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** The query of `listTools`; without `mode` every tool is listed (`full`). `code`: code mode's single `execute` tool. */
export interface ListToolsOptions {
  mode?: "auto" | "full" | "search" | "code";
  /** The model's context window in tokens (for `mode: "auto"`). */
  contextWindow?: number;
  /** Tokens already used in that window. */
  usedTokens?: number;
  /** The turn the listing is for (search mode lists the tools loaded in it). */
  turn?: string;
}

/** One event of a session's stream. */
export interface McpEdgeEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export interface EventsOptions extends RequestOptions {
  /** Resume after this event id. */
  lastEventId?: string;
  /** Reconnect delays: doubled from `minDelayMs` up to `maxDelayMs` (defaults 250 / 5,000). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

type Query = Record<string, string | number | undefined>;

interface Call {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Query;
  body?: unknown;
  signal?: AbortSignal | undefined;
}

export class McpEdgeClient {
  private readonly baseUrl: string;
  private readonly fetcher: FetchLike;
  private readonly headers: Record<string, string>;
  private readonly token: McpEdgeClientOptions["token"];

  constructor(options: McpEdgeClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
    this.headers = options.headers ?? {};
    this.token = options.token;
  }

  /** The configured headers plus `Authorization` when there is a token. */
  private async baseHeaders(): Promise<Record<string, string>> {
    const token = typeof this.token === "function" ? await this.token() : this.token;
    return token ? { ...this.headers, authorization: `Bearer ${token}` } : { ...this.headers };
  }

  // ── Service ──────────────────────────────────────────────────────────────

  health(options: RequestOptions = {}): Promise<Health> {
    return this.send({ method: "GET", path: "/health", signal: options.signal });
  }

  openApi(options: RequestOptions = {}): Promise<OpenApiDocument> {
    return this.send({ method: "GET", path: "/v1/openapi.json", signal: options.signal });
  }

  listBridges(options: RequestOptions = {}): Promise<BridgeList> {
    return this.send({ method: "GET", path: "/v1/bridges", signal: options.signal });
  }

  // ── Sessions and servers ─────────────────────────────────────────────────

  createSession(body: SessionBodyInput = {}, options: RequestOptions = {}): Promise<SessionInfo> {
    return this.send({ method: "POST", path: "/v1/sessions", body, signal: options.signal });
  }

  getSession(sessionId: string, options: RequestOptions = {}): Promise<SessionInfo> {
    return this.send({ method: "GET", path: sessionPath(sessionId), signal: options.signal });
  }

  deleteSession(sessionId: string, options: RequestOptions = {}): Promise<void> {
    return this.send({ method: "DELETE", path: sessionPath(sessionId), signal: options.signal });
  }

  putServer(sessionId: string, name: string, config: ServerConfigInput, options: RequestOptions = {}): Promise<ServerStatus> {
    return this.send({ method: "PUT", path: serverPath(sessionId, name), body: config, signal: options.signal });
  }

  deleteServer(sessionId: string, name: string, options: RequestOptions = {}): Promise<void> {
    return this.send({ method: "DELETE", path: serverPath(sessionId, name), signal: options.signal });
  }

  connectServer(sessionId: string, name: string, options: RequestOptions = {}): Promise<ServerStatus> {
    return this.send({ method: "POST", path: `${serverPath(sessionId, name)}/connect`, signal: options.signal });
  }

  disconnectServer(sessionId: string, name: string, options: RequestOptions = {}): Promise<ServerStatus> {
    return this.send({ method: "POST", path: `${serverPath(sessionId, name)}/disconnect`, signal: options.signal });
  }

  // ── OAuth (signing in to remote servers) ─────────────────────────────────

  /** Starts signing in to an OAuth-protected server: open `authorizationUrl` in a browser; the callback connects it. */
  authorizeServer(sessionId: string, name: string, options: RequestOptions = {}): Promise<AuthorizationStarted> {
    return this.send({ method: "POST", path: `${serverPath(sessionId, name)}/auth`, signal: options.signal });
  }

  /** Forgets the principal's credentials for the server. */
  signOutServer(sessionId: string, name: string, options: RequestOptions = {}): Promise<ServerStatus> {
    return this.send({ method: "DELETE", path: `${serverPath(sessionId, name)}/auth`, signal: options.signal });
  }

  /** A hand-made initialize and OAuth discovery against the server; nothing is stored. */
  debugServer(sessionId: string, name: string, options: RequestOptions = {}): Promise<ServerDebugReport> {
    return this.send({ method: "POST", path: `${serverPath(sessionId, name)}/debug`, signal: options.signal });
  }

  // ── Tools ────────────────────────────────────────────────────────────────

  listTools(sessionId: string, query: ListToolsOptions = {}, options: RequestOptions = {}): Promise<ToolList> {
    return this.send({ method: "GET", path: `${sessionPath(sessionId)}/tools`, query: { ...query }, signal: options.signal });
  }

  searchTools(sessionId: string, body: SearchToolsInput, options: RequestOptions = {}): Promise<SearchResults> {
    return this.send({ method: "POST", path: `${sessionPath(sessionId)}/tools/search`, body, signal: options.signal });
  }

  /** A tool error is a result with `isError: true`, not an exception. */
  callTool(sessionId: string, body: CallToolInput, options: RequestOptions = {}): Promise<CallResult> {
    return this.send({ method: "POST", path: `${sessionPath(sessionId)}/tools/call`, body, signal: options.signal });
  }

  /**
   * Code mode: runs a script in the session's sandbox (`await tools.<name>(args)`,
   * `callTool(name, args)`, `console.log`, `return value`). A script that throws is a
   * result with `error` (and the calls it made), not an exception.
   */
  exec(sessionId: string, body: ExecInput, options: RequestOptions = {}): Promise<ExecResult> {
    return this.send({ method: "POST", path: `${sessionPath(sessionId)}/exec`, body, signal: options.signal });
  }

  // ── Events ───────────────────────────────────────────────────────────────

  /**
   * The session's live events, as an async iterator. When the stream drops it reconnects
   * (with backoff) sending `Last-Event-ID`, so nothing is seen twice; a `gap` event says
   * what fell out meanwhile. It ends when `signal` aborts or the loop breaks; a session that
   * no longer exists ends it with an McpEdgeApiError.
   */
  async *events(sessionId: string, options: EventsOptions = {}): AsyncGenerator<McpEdgeEvent> {
    const minDelay = options.minDelayMs ?? 250;
    const maxDelay = options.maxDelayMs ?? 5_000;
    let lastEventId = options.lastEventId;
    let delay = minDelay;
    const local = new AbortController();
    const abort = () => local.abort();
    options.signal?.addEventListener("abort", abort);
    try {
      while (!local.signal.aborted) {
        let response: Response | undefined;
        // Outside the retry: a token function that fails is the caller's error, not a dropped connection.
        const headers = await this.baseHeaders();
        try {
          response = await this.fetcher(`${this.baseUrl}${sessionPath(sessionId)}/events`, {
            method: "GET",
            headers: { accept: "text/event-stream", ...headers, ...(lastEventId !== undefined ? { "last-event-id": lastEventId } : {}) },
            signal: local.signal,
          });
        } catch (error) {
          if (local.signal.aborted) return;
          void error;
        }
        if (response && !response.ok) {
          const text = await response.text();
          // A gone session or a bad request does not get better by retrying.
          if (response.status < 500) throw apiError(response.status, response.statusText, text);
        } else if (response?.body) {
          const parser = createSseParser();
          const decoder = new TextDecoder();
          const reader = response.body.getReader();
          try {
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              for (const event of parser.push(decoder.decode(value, { stream: true }))) {
                if (event.id !== undefined) lastEventId = event.id;
                delay = minDelay;
                yield { id: event.id ?? "", type: event.event || "message", data: JSON.parse(event.data) as Record<string, unknown> };
              }
            }
          } catch (error) {
            if (local.signal.aborted) return;
            void error;
          } finally {
            reader.releaseLock();
          }
        }
        if (local.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(maxDelay, delay * 2);
      }
    } finally {
      options.signal?.removeEventListener("abort", abort);
      local.abort();
    }
  }

  // ── Turns ────────────────────────────────────────────────────────────────

  /** A new turn id (a ULID) to pass as `turn` on listings and calls. */
  startTurn(sessionId: string, options: RequestOptions = {}): Promise<TurnCreated> {
    return this.send({ method: "POST", path: `${sessionPath(sessionId)}/turns`, signal: options.signal });
  }

  /** Ends a turn; turn-aware servers are told (at most 1 s each). */
  endTurn(sessionId: string, turnId: string, body: EndTurnInput, options: RequestOptions = {}): Promise<TurnEnded> {
    return this.send({ method: "POST", path: `${sessionPath(sessionId)}/turns/${encodeURIComponent(turnId)}/end`, body, signal: options.signal });
  }

  // ── Approvals ────────────────────────────────────────────────────────────

  /** Requests waiting for a person (samplings, elicitations, tool calls held by `ask`). */
  listApprovals(sessionId: string, options: RequestOptions = {}): Promise<ApprovalList> {
    return this.send({ method: "GET", path: `${sessionPath(sessionId)}/approvals`, signal: options.signal });
  }

  replyApproval(sessionId: string, approvalId: string, body: ApprovalReplyInput, options: RequestOptions = {}): Promise<ApprovalResolved> {
    return this.send({ method: "POST", path: `${sessionPath(sessionId)}/approvals/${encodeURIComponent(approvalId)}`, body, signal: options.signal });
  }

  // ── Resources, prompts, instructions ─────────────────────────────────────

  listResources(sessionId: string, options: RequestOptions = {}): Promise<ResourceList> {
    return this.send({ method: "GET", path: `${sessionPath(sessionId)}/resources`, signal: options.signal });
  }

  listResourceTemplates(sessionId: string, options: RequestOptions = {}): Promise<ResourceTemplateList> {
    return this.send({ method: "GET", path: `${sessionPath(sessionId)}/resources/templates`, signal: options.signal });
  }

  readResource(sessionId: string, body: ReadResourceInput, options: RequestOptions = {}): Promise<ReadResourceResult> {
    return this.send({ method: "POST", path: `${sessionPath(sessionId)}/resources/read`, body, signal: options.signal });
  }

  listPrompts(sessionId: string, options: RequestOptions = {}): Promise<PromptList> {
    return this.send({ method: "GET", path: `${sessionPath(sessionId)}/prompts`, signal: options.signal });
  }

  getPrompt(sessionId: string, body: GetPromptInput, options: RequestOptions = {}): Promise<GetPromptResult> {
    return this.send({ method: "POST", path: `${sessionPath(sessionId)}/prompts/get`, body, signal: options.signal });
  }

  instructions(sessionId: string, options: RequestOptions = {}): Promise<Instructions> {
    return this.send({ method: "GET", path: `${sessionPath(sessionId)}/instructions`, signal: options.signal });
  }

  // ── Transport ────────────────────────────────────────────────────────────

  /** One request: JSON in, JSON out (nothing for 204); anything but 2xx throws McpEdgeApiError. */
  private async send<T>(call: Call): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json", ...(await this.baseHeaders()) };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    const response = await this.fetcher(`${this.baseUrl}${call.path}${queryString(call.query)}`, {
      method: call.method,
      headers,
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw apiError(response.status, response.statusText, text);
    if (response.status === 204 || text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new McpEdgeApiError(response.status, "httpError", "the answer is not JSON", { body: text.slice(0, 1000) });
    }
  }
}

function sessionPath(sessionId: string): string {
  return `/v1/sessions/${encodeURIComponent(sessionId)}`;
}

function serverPath(sessionId: string, name: string): string {
  return `${sessionPath(sessionId)}/servers/${encodeURIComponent(name)}`;
}

function queryString(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}
