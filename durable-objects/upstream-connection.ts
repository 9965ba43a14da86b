/**
 * One upstream MCP server: the SDK `Client`, its transport and the state machine in
 * `src/core/connection-state.ts`. It connects (Streamable HTTP, then SSE on 404/405),
 * lists and calls, re-initializes once when the server forgot our session, and can
 * resume a persisted session after the Durable Object was evicted. Callbacks from a
 * client that has since been replaced are ignored.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type JSONRPCMessage,
  type Progress,
  type RequestId,
  type CompleteRequest,
  type Root,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { toCachedTool, type CachedTool } from "../src/core/catalog.js";
import type { LocalServerConfig, RemoteServerConfig, ResolvedServerConfig, Timeouts } from "../src/core/config.js";
import { canTransition, ConnectionState, toPublicStatus, type ServerStatus } from "../src/core/connection-state.js";
import { McpEdgeError, messageOf } from "../src/core/errors.js";
import {
  declaresTurnLifecycle,
  TURN_LIFECYCLE_CAPABILITY,
  TURN_LIFECYCLE_NOTIFICATION,
  TURN_LIFECYCLE_VERSION,
  TURN_NOTIFY_TIMEOUT_MS,
  turnMeta,
  type TurnContext,
  type TurnStatus,
} from "../src/core/turn-lifecycle.js";
import { collectPages } from "../src/core/pagination.js";
import { redactUrl } from "../src/core/url-policy.js";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { classifyAuthChallenge, type AuthChallenge } from "./auth-discovery.js";
import type { ConnectionCredentials } from "./connection-credentials.js";
import { AuthorizationRequired, ConnectionAuthProvider, ScopeRefused, TokenRefreshed, type ChallengeInfo } from "./oauth-provider.js";
import { BridgeChannelTransport } from "./bridge-transport.js";
import { safeJsonSchemaValidator } from "./json-schema-validator.js";
import { WorkerSSEClientTransport } from "./sse-transport.js";
import { WorkerStreamableHTTPClientTransport } from "./streamable-http-transport.js";

export const CLIENT_INFO = { name: "mcp-edge", version: "0.1.0" } as const;

/** Longest wait for the server to answer the DELETE that ends its session when we close (capped by the request timeout). */
export const SESSION_TERMINATE_TIMEOUT_MS = 5_000;

/** What survives eviction, so a connection can be resumed without a new initialize. */
export interface ResumeInfo {
  transport: "streamable-http" | "sse";
  sessionId?: string;
  protocolVersion?: string;
  capabilities?: ServerCapabilities;
  instructions?: string;
}

export interface ConnectionHooks {
  roots: () => string[];
  /** Roots from a downstream MCP client of the session; undefined when no downstream declared roots. */
  downstreamRoots?: (signal: AbortSignal | undefined) => Promise<Root[] | undefined>;
  /** The tool list changed (after list_changed or a reconnect). */
  onToolsChanged: (connection: UpstreamConnection) => void;
  /** State changed: persist it. */
  onStateChanged: (connection: UpstreamConnection) => void;
  log: (level: "info" | "warn" | "error", message: string, data?: Record<string, unknown>) => void;
  fetch?: typeof fetch;
  /** A `notifications/resources/updated` arrived (for a resource someone subscribed to). */
  onResourceUpdated?: (connection: UpstreamConnection, uri: string) => void;
  /** A `notifications/message` (server log) arrived. */
  onLog?: (connection: UpstreamConnection, params: { level: string; logger?: string; data?: unknown }) => void;
  /** The principal's OAuth credentials for this (remote) server, when the deployment can hold them. */
  credentials?: ConnectionCredentials;
  /** A transport to a bridged (local) server, or why there is none. */
  bridgeTransport?: (config: LocalServerConfig) => BridgeChannelTransport | string;
  /** Answers the server's sampling and elicitation requests; without it they are not declared. */
  serverRequests?: ServerRequestHandlers;
}

/** What a server→client request handler gets besides the params. */
export interface ServerRequestContext {
  /** Aborted when the server cancels the request or the connection closes. */
  signal: AbortSignal;
  requestId: RequestId;
  /** Sends `notifications/progress` for this request (only meaningful with a progress token). */
  progress: (progress: Progress & { progressToken: string | number }) => Promise<void>;
}

/** Server→client requests this host answers (declared as `sampling: {}` and `elicitation: {form, url}`). */
export interface ServerRequestHandlers {
  sampling: (connection: UpstreamConnection, params: CreateMessageRequest["params"], context: ServerRequestContext) => Promise<CreateMessageResult>;
  elicitation: (connection: UpstreamConnection, params: ElicitRequest["params"], context: ServerRequestContext) => Promise<ElicitResult>;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** The turn the call belongs to; passed on as `_meta` to turn-aware servers. */
  turn?: TurnContext;
}


export class UpstreamConnection {
  state: ConnectionState = ConnectionState.idle;
  error: string | undefined;
  tools: CachedTool[] = [];
  resume: ResumeInfo | undefined;

  private client: Client | undefined;
  private transport: StreamableHTTPClientTransport | WorkerSSEClientTransport | BridgeChannelTransport | undefined;
  private connecting: Promise<void> | undefined;
  private lastChallenge: AuthChallenge | undefined;
  /** The last authorization challenge's parameters, kept after a failed connect for `POST …/auth`. */
  authChallenge: ChallengeInfo | undefined;

  constructor(
    readonly name: string,
    readonly config: ResolvedServerConfig,
    readonly timeouts: Timeouts,
    private readonly hooks: ConnectionHooks,
  ) {}

  /** The principal's credentials for this server, if it can hold any. */
  get credentialsSource(): ConnectionCredentials | undefined {
    return this.hooks.credentials;
  }

  get status(): ServerStatus {
    const status = toPublicStatus(this.state);
    return {
      status,
      ...(this.error && status !== "connected" ? { error: this.error } : {}),
      ...(status === "connected" ? { tools: this.tools.length } : {}),
    };
  }

  get capabilities(): ServerCapabilities | undefined {
    return this.client?.getServerCapabilities() ?? this.resume?.capabilities;
  }

  /** The server's self-description from initialize (title/description), for search. */
  get description(): string | undefined {
    const info = this.client?.getServerVersion() as { title?: string; description?: string } | undefined;
    return [info?.title, info?.description].filter(Boolean).join(": ") || undefined;
  }

  /** The server declared the turn-lifecycle extension. */
  get turnAware(): boolean {
    return declaresTurnLifecycle(this.capabilities as { experimental?: Record<string, unknown> } | undefined);
  }

  /**
   * Tells a turn-aware server that a turn ended, waiting at most TURN_NOTIFY_TIMEOUT_MS:
   * a server that is stuck is given up on, never queued behind.
   */
  async notifyTurnEnd(context: TurnContext, status: TurnStatus): Promise<"notified" | "timedOut" | "failed"> {
    const client = this.client;
    if (!client || this.state !== ConnectionState.connected) return "failed";
    const sent = client
      .notification({ method: TURN_LIFECYCLE_NOTIFICATION, params: { ...turnMeta(context), status } })
      .then(
        () => "notified" as const,
        () => "failed" as const,
      );
    let timer: number | undefined;
    const timeout = new Promise<"timedOut">((resolve) => {
      timer = setTimeout(() => resolve("timedOut"), TURN_NOTIFY_TIMEOUT_MS) as unknown as number;
    });
    return Promise.race([sent, timeout]).finally(() => clearTimeout(timer ?? null));
  }

  /** Tells the server that the roots changed, so it asks `roots/list` again; failures only logged. */
  async sendRootsListChanged(): Promise<void> {
    const client = this.client;
    if (!client || this.state !== ConnectionState.connected) return;
    await client.sendRootsListChanged().catch((error: unknown) => this.hooks.log("warn", "roots list_changed not sent", { server: this.name, reason: messageOf(error) }));
  }

  get instructions(): string | undefined {
    return this.client?.getInstructions() ?? this.resume?.instructions;
  }

  /** Connects (or reconnects); resolves once settled in a non-connecting state. */
  connect(resume?: ResumeInfo): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = this.doConnect(resume).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Waits for a connect in progress, if any. */
  async settled(): Promise<void> {
    await this.connecting;
  }

  /**
   * Takes a settled state from storage after eviction (never `connected`: that one is
   * re-established with connect()). Only from `idle`, so it cannot clobber a live state.
   */
  restoreSettled(state: ConnectionState, error: string | undefined): void {
    if (this.state !== ConnectionState.idle || state === ConnectionState.connected || state === ConnectionState.connecting) return;
    this.state = state;
    this.error = error;
  }

  /**
   * Answers a server→client request by its JSON-RPC id on the current transport: the
   * path for an approval answered after the Durable Object was evicted, when the SDK
   * client that received the request is gone but the upstream session was resumed.
   */
  async answerServerRequest(id: RequestId, outcome: { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } }): Promise<void> {
    await this.settled();
    const transport = this.transport;
    if (!transport || this.state !== ConnectionState.connected) throw new McpEdgeError("serverUnavailable", `server "${this.name}" is ${this.state}`);
    const message = { jsonrpc: "2.0" as const, id, ...outcome } as JSONRPCMessage;
    await transport.send(message);
  }

  /** Ends the upstream session too: connecting again initializes a fresh one. */
  async disable(): Promise<void> {
    await this.dropClient({ terminate: true });
    this.transition(ConnectionState.disabled);
  }

  /** Final: ends the upstream session (DELETE, bounded) so the server can free it, then the client. */
  async close(): Promise<void> {
    await this.dropClient({ terminate: true });
    this.transition(ConnectionState.closed);
  }

  private transition(to: ConnectionState, error?: string): void {
    if (this.state === to && to !== ConnectionState.failed) return;
    if (!canTransition(this.state, to)) {
      this.hooks.log("warn", "ignored illegal connection transition", { server: this.name, from: this.state, to });
      return;
    }
    this.state = to;
    this.error = error;
    this.hooks.onStateChanged(this);
  }

  private async doConnect(resume?: ResumeInfo): Promise<void> {
    await this.dropClient();
    if (this.config.type === "local") return this.connectBridged(this.config);
    this.transition(ConnectionState.connecting);
    const config = this.config;
    this.hooks.credentials?.forget();
    try {
      const establish = async () => {
        try {
          await this.establish(config, resume);
        } catch (error) {
          // The vault refreshed the refused token: one more try, never more.
          if (!(error instanceof TokenRefreshed)) throw error;
          await this.dropClient();
          await this.establish(config);
        }
      };
      await withDeadline(establish(), this.timeouts.startup, `startup timed out after ${this.timeouts.startup} ms`);
      this.transition(ConnectionState.connected);
      this.hooks.onToolsChanged(this);
    } catch (error) {
      await this.dropClient();
      const challenge = this.lastChallenge;
      if (error instanceof ScopeRefused) {
        this.transition(ConnectionState.failed, error.message);
      } else if (error instanceof AuthorizationRequired && error.stepUp) {
        this.transition(ConnectionState.needsAuth, error.message);
      } else if (challenge) {
        const verdict = await withDeadline(
          classifyAuthChallenge(config, challenge, this.hooks.fetch ?? fetch),
          this.timeouts.startup,
          `OAuth discovery timed out after ${this.timeouts.startup} ms`,
        ).catch((e: unknown) => ({ state: "failed" as const, error: messageOf(e) }));
        const to =
          verdict.state === "needs_auth"
            ? ConnectionState.needsAuth
            : verdict.state === "needs_client_registration"
              ? ConnectionState.needsClientRegistration
              : ConnectionState.failed;
        this.transition(to, to === ConnectionState.needsAuth && error instanceof AuthorizationRequired ? error.message : verdict.error);
      } else {
        this.transition(ConnectionState.failed, describeConnectError(error));
      }
    }
  }

  /** A stdio server on a developer's machine, through the principal's bridge hub. */
  private async connectBridged(config: LocalServerConfig): Promise<void> {
    this.transition(ConnectionState.connecting);
    const transport = this.hooks.bridgeTransport?.(config);
    if (!transport || typeof transport === "string") {
      this.transition(ConnectionState.failed, transport ?? "no bridge: local (stdio) servers are reached through the mcp-edge bridge");
      return;
    }
    try {
      await withDeadline(
        (async () => {
          const client = this.createClient(() => this.hooks.roots(), () => transport.roots);
          this.transport = transport;
          await client.connect(transport, { timeout: this.timeouts.startup });
          await this.refreshTools();
        })(),
        this.timeouts.startup,
        `startup timed out after ${this.timeouts.startup} ms`,
      );
      this.transition(ConnectionState.connected);
      this.hooks.onToolsChanged(this);
    } catch (error) {
      await this.dropClient();
      this.transition(ConnectionState.failed, transport.closeReason ?? messageOf(error));
    }
  }

  /** Streamable HTTP first; SSE when the endpoint is not Streamable HTTP. Resumes when it can. */
  private async establish(config: RemoteServerConfig, resume?: ResumeInfo): Promise<void> {
    if (resume?.transport === "streamable-http" && resume.sessionId) {
      try {
        await this.start(config, "streamable-http", resume);
        // A resumed session skips initialize, so the SDK does not open the standalone GET
        // stream; open it ourselves so server-initiated messages keep flowing. If it cannot
        // be opened (the server forgot us, or still holds the old stream: 409), the resumed
        // session would be deaf, so initialize a new one instead.
        const transport = this.transport as StreamableHTTPClientTransport;
        await transport.resumeStream(undefined as unknown as string);
        await this.refreshTools();
        return;
      } catch (error) {
        this.hooks.log("info", "resume failed; initializing a new session", { server: this.name, reason: messageOf(error) });
        await this.dropClient();
        this.lastChallenge = undefined;
      }
    }
    if (resume?.transport !== "sse") {
      try {
        await this.start(config, "streamable-http");
        await this.refreshTools();
        return;
      } catch (error) {
        if (this.lastChallenge || !isNotStreamableHttp(error)) throw error;
        this.hooks.log("info", "not a Streamable HTTP endpoint; trying SSE", { server: this.name, url: redactUrl(config.url) });
        await this.dropClient();
      }
    }
    await this.start(config, "sse");
    await this.refreshTools();
  }

  private async start(config: RemoteServerConfig, kind: ResumeInfo["transport"], resume?: ResumeInfo): Promise<void> {
    this.lastChallenge = undefined;
    const url = new URL(config.url);
    const requestInit: RequestInit = { headers: config.headers ?? {} };
    const observedFetch = this.observingFetch();
    const credentials = this.hooks.credentials;
    const authProvider = credentials && config.oauth !== false ? new ConnectionAuthProvider(credentials, () => this.authChallenge) : undefined;
    const transport =
      kind === "streamable-http"
        ? new WorkerStreamableHTTPClientTransport(url, {
            requestInit,
            fetch: observedFetch,
            ...(authProvider ? { authProvider } : {}),
            ...(resume?.sessionId ? { sessionId: resume.sessionId } : {}),
          })
        : new WorkerSSEClientTransport(url, { requestInit, fetch: observedFetch, ...(authProvider ? { authProvider } : {}) });
    const client = this.createClient(() => this.hooks.roots());
    this.transport = transport;
    if (resume?.protocolVersion && transport instanceof StreamableHTTPClientTransport) transport.setProtocolVersion(resume.protocolVersion);
    await client.connect(transport as Transport, { timeout: this.timeouts.startup });
    this.resume = resumeInfo(kind, transport, client, resume);
  }

  /**
   * A fresh SDK client wired to this connection; events from a replaced client are ignored.
   * `ownRoots`: roots the transport itself fixes (a bridged server's cwd), which win.
   */
  private createClient(roots: () => string[], ownRoots?: () => readonly string[]): Client {
    const serverRequests = this.hooks.serverRequests;
    const client = new Client(CLIENT_INFO, {
      capabilities: {
        roots: { listChanged: true },
        // Only plain sampling: we run no tools for the server and include no context.
        ...(serverRequests ? { sampling: {}, elicitation: { form: {}, url: {} } } : {}),
        experimental: { [TURN_LIFECYCLE_CAPABILITY]: { version: TURN_LIFECYCLE_VERSION } },
      },
      jsonSchemaValidator: safeJsonSchemaValidator(),
    });
    client.setRequestHandler(ListRootsRequestSchema, async (_request, extra) => {
      const fixed = ownRoots?.() ?? [];
      if (fixed.length > 0) return { roots: fixed.map((uri) => ({ uri })) };
      // A downstream MCP client that declared roots knows the workspace best; else the session's.
      const downstream = await this.hooks.downstreamRoots?.(extra.signal);
      return { roots: downstream ?? roots().map((uri) => ({ uri })) };
    });
    if (serverRequests) {
      const context = (extra: { signal: AbortSignal; requestId: RequestId; sendNotification: (n: { method: "notifications/progress"; params: Progress & { progressToken: string | number } }) => Promise<void> }): ServerRequestContext => ({
        signal: extra.signal,
        requestId: extra.requestId,
        progress: (progress) => extra.sendNotification({ method: "notifications/progress", params: progress }),
      });
      client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => serverRequests.sampling(this, request.params, context(extra)));
      client.setRequestHandler(ElicitRequestSchema, (request, extra) => serverRequests.elicitation(this, request.params, context(extra)));
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      try {
        await this.refreshTools();
        if (this.client === client) this.hooks.onToolsChanged(this);
      } catch (error) {
        this.hooks.log("warn", "refreshing tools after list_changed failed", { server: this.name, reason: messageOf(error) });
      }
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      if (this.client === client) this.hooks.onResourceUpdated?.(this, notification.params.uri);
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      if (this.client === client) this.hooks.onLog?.(this, notification.params);
    });
    client.onclose = () => {
      if (this.client !== client) return;
      const reason = this.transport instanceof BridgeChannelTransport ? this.transport.closeReason : undefined;
      this.client = undefined;
      this.transport = undefined;
      if (this.state === ConnectionState.connected) this.transition(ConnectionState.failed, reason ?? "connection closed by the server");
    };
    client.onerror = (error) => {
      if (this.client === client) this.onTransportError(error);
    };
    this.client = client;
    return client;
  }

  private onTransportError(error: unknown): void {
    this.hooks.log("warn", "transport error", { server: this.name, reason: messageOf(error) });
  }

  /** Records 401/403 answers, so a failed connect can say `needs_auth` from a status, not a message. */
  private observingFetch(): typeof fetch {
    const base = this.hooks.fetch ?? fetch;
    return async (input, init) => {
      const response = await base(input, init);
      if (response.status === 401 || (response.status === 403 && response.headers.has("www-authenticate"))) {
        this.lastChallenge = { status: response.status, headers: new Headers(response.headers) };
        const params = extractWWWAuthenticateParams(response);
        this.authChallenge = {
          status: response.status,
          ...(params.scope ? { scope: params.scope } : {}),
          ...(params.error ? { error: params.error } : {}),
          ...(params.resourceMetadataUrl ? { resourceMetadataUrl: params.resourceMetadataUrl } : {}),
        };
      }
      return response;
    };
  }

  /**
   * Forgets the client. `terminate` (close, disable: we are done with that session) ends
   * the upstream session too; a reconnect keeps it, the server may still resume it.
   */
  private async dropClient({ terminate = false }: { terminate?: boolean } = {}): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (!client) return;
    try {
      if (terminate && transport instanceof StreamableHTTPClientTransport && transport.sessionId) await this.terminateUpstreamSession(transport);
      await client.close();
    } catch {
      // Closing a dead connection may throw; it is gone either way.
    }
  }

  /** DELETE on the upstream session; a server that does not answer must not hold up closing (client.close() aborts it). */
  private async terminateUpstreamSession(transport: StreamableHTTPClientTransport): Promise<void> {
    let timer: number | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.min(this.timeouts.request, SESSION_TERMINATE_TIMEOUT_MS)) as unknown as number;
    });
    await Promise.race([transport.terminateSession().catch(() => undefined), bound]).finally(() => clearTimeout(timer ?? null));
  }

  async refreshTools(): Promise<void> {
    const client = this.requireClient();
    const tools = await collectPages(
      async (cursor) => {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.timeouts.request });
        return { items: page.tools, nextCursor: page.nextCursor };
      },
      { what: `${this.name}: tools/list` },
    );
    if (this.client === client) this.tools = tools.map(toCachedTool);
  }

  private requireClient(): Client {
    if (!this.client) throw new McpEdgeError("serverUnavailable", `server "${this.name}" is not connected`);
    return this.client;
  }

  /** Makes sure a usable client exists: lazily resumes or reconnects a failed server once. */
  async ready(): Promise<Client> {
    await this.settled();
    if (this.client && this.state === ConnectionState.connected) return this.client;
    if (this.state === ConnectionState.disabled) throw new McpEdgeError("serverUnavailable", `server "${this.name}" is disabled`);
    if (this.state === ConnectionState.needsAuth || this.state === ConnectionState.needsClientRegistration) {
      throw new McpEdgeError("serverUnavailable", `server "${this.name}" is ${this.state}: ${this.error ?? ""}`.trim(), { status: this.state });
    }
    await this.connect(this.resume);
    if (this.client && this.state === ConnectionState.connected) return this.client;
    throw new McpEdgeError("serverUnavailable", `server "${this.name}" is ${toPublicStatus(this.state)}: ${this.error ?? "not connected"}`, {
      status: toPublicStatus(this.state),
    });
  }

  /**
   * Runs one request with the session-lost rule: if the server answers that it no
   * longer knows our session (404, or 400 to a request that carried a session id),
   * the request was not delivered, so initialize again once and retry once.
   */
  private async withSession<T>(run: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.ready();
    const hadSession = this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId !== undefined;
    try {
      try {
        return await run(client);
      } catch (error) {
        // The vault refreshed the refused token: the same client retries once.
        if (error instanceof TokenRefreshed && this.client === client) return await run(client);
        throw error;
      }
    } catch (error) {
      if (error instanceof AuthorizationRequired && this.client === client) {
        await this.dropClient();
        this.transition(ConnectionState.needsAuth, error.message);
        throw new McpEdgeError("serverUnavailable", `server "${this.name}" is needs_auth: ${error.message}`, { status: "needs_auth" });
      }
      if (error instanceof ScopeRefused) throw new McpEdgeError("upstreamError", `server "${this.name}": ${error.message}`, { server: this.name });
      if (isSessionLost(error, hadSession)) {
        this.hooks.log("info", "upstream session lost; initializing again", { server: this.name });
        await this.connect();
        return await run(await this.ready());
      }
      if (isNetworkFailure(error) && this.client === client) {
        await this.dropClient();
        this.transition(ConnectionState.failed, `connection lost: ${messageOf(error)}`);
      }
      throw error;
    }
  }

  async callTool(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    try {
      return (await this.withSession((client) =>
        client.callTool({ name: tool, arguments: args, ...(options.turn && this.turnAware ? { _meta: turnMeta(options.turn) } : {}) }, undefined, {
          timeout: this.timeouts.request,
          maxTotalTimeout: this.timeouts.maxTotal,
          resetTimeoutOnProgress: true,
          // Always ask for progress: it is what lets long calls outlive the request timeout.
          onprogress: (progress) => options.onProgress?.(progress),
          ...(options.signal ? { signal: options.signal } : {}),
        }),
      )) as CallToolResult;
    } catch (error) {
      throw toUpstreamError(this.name, error, options.signal);
    }
  }

  async request<T>(what: string, run: (client: Client, opts: { timeout: number; signal?: AbortSignal }) => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await this.withSession((client) => run(client, { timeout: this.timeouts.request, ...(signal ? { signal } : {}) }));
    } catch (error) {
      throw toUpstreamError(this.name, error, signal, what);
    }
  }

  listResources(signal?: AbortSignal) {
    return this.request("resources/list", (client, opts) =>
      collectPages(async (cursor) => {
        const page = await client.listResources(cursor ? { cursor } : {}, opts);
        return { items: page.resources, nextCursor: page.nextCursor };
      }, { what: `${this.name}: resources/list` }),
    signal);
  }

  listResourceTemplates(signal?: AbortSignal) {
    return this.request("resources/templates/list", (client, opts) =>
      collectPages(async (cursor) => {
        const page = await client.listResourceTemplates(cursor ? { cursor } : {}, opts);
        return { items: page.resourceTemplates, nextCursor: page.nextCursor };
      }, { what: `${this.name}: resources/templates/list` }),
    signal);
  }

  readResource(uri: string, signal?: AbortSignal) {
    return this.request("resources/read", (client, opts) => client.readResource({ uri }, opts), signal);
  }

  listPrompts(signal?: AbortSignal) {
    return this.request("prompts/list", (client, opts) =>
      collectPages(async (cursor) => {
        const page = await client.listPrompts(cursor ? { cursor } : {}, opts);
        return { items: page.prompts, nextCursor: page.nextCursor };
      }, { what: `${this.name}: prompts/list` }),
    signal);
  }

  subscribeResource(uri: string, signal?: AbortSignal) {
    return this.request("resources/subscribe", (client, opts) => client.subscribeResource({ uri }, opts), signal);
  }

  unsubscribeResource(uri: string, signal?: AbortSignal) {
    return this.request("resources/unsubscribe", (client, opts) => client.unsubscribeResource({ uri }, opts), signal);
  }

  complete(params: CompleteRequest["params"], signal?: AbortSignal) {
    return this.request("completion/complete", (client, opts) => client.complete(params, opts), signal);
  }

  getPrompt(name: string, args: Record<string, string> | undefined, signal?: AbortSignal) {
    return this.request("prompts/get", (client, opts) => client.getPrompt({ name, ...(args ? { arguments: args } : {}) }, opts), signal);
  }
}

function resumeInfo(kind: ResumeInfo["transport"], transport: Transport, client: Client, previous?: ResumeInfo): ResumeInfo {
  const streamable = transport instanceof StreamableHTTPClientTransport ? transport : undefined;
  const info: ResumeInfo = { transport: kind };
  const sessionId = streamable?.sessionId;
  const protocolVersion = streamable?.protocolVersion ?? previous?.protocolVersion;
  const capabilities = client.getServerCapabilities() ?? previous?.capabilities;
  const instructions = client.getInstructions() ?? previous?.instructions;
  if (sessionId) info.sessionId = sessionId;
  if (protocolVersion) info.protocolVersion = protocolVersion;
  if (capabilities) info.capabilities = capabilities;
  if (instructions !== undefined) info.instructions = instructions;
  return info;
}

function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError) return error.code;
  if (typeof error === "object" && error !== null && "code" in error && error.constructor?.name === "SseError") {
    const code = (error as { code?: unknown }).code;
    return typeof code === "number" ? code : undefined;
  }
  return undefined;
}

/** 404/405, or an answer that is not a Streamable HTTP one (wrong content type, -1). */
function isNotStreamableHttp(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status === 404 || status === 405 || status === -1;
}

function isSessionLost(error: unknown, hadSession: boolean): boolean {
  const status = httpStatusOf(error);
  return hadSession && (status === 404 || status === 400);
}

/** The request never got an HTTP answer (refused, reset, closed): the fetch itself threw. */
function isNetworkFailure(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  return !McpEdgeError.is(error) && httpStatusOf(error) === undefined;
}

function describeConnectError(error: unknown): string {
  const status = httpStatusOf(error);
  if (status !== undefined && status > 0) return `HTTP ${status}: ${messageOf(error)}`;
  return messageOf(error);
}

/** Maps an upstream failure to the API's typed error (502 unreachable, 504 timeout, 499 cancelled). */
export function toUpstreamError(server: string, error: unknown, signal?: AbortSignal, what = "tools/call"): McpEdgeError {
  if (McpEdgeError.is(error)) return error;
  if (signal?.aborted) return new McpEdgeError("cancelled", `${what} on "${server}" was cancelled by the caller`);
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return new McpEdgeError("timeout", `${what} on "${server}" timed out: ${error.message}`, { server });
    if (error.code === ErrorCode.ConnectionClosed) return new McpEdgeError("serverUnavailable", `server "${server}" closed the connection`, { server });
    return new McpEdgeError("upstreamError", `${what} on "${server}" failed: ${error.message}`, { server, rpcCode: error.code });
  }
  const status = httpStatusOf(error);
  return new McpEdgeError("serverUnavailable", `server "${server}" is unreachable: ${messageOf(error)}`, {
    server,
    ...(status !== undefined ? { httpStatus: status } : {}),
  });
}

function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: number | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new McpEdgeError("timeout", message)), ms) as unknown as number;
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer ?? null));
}
