/**
 * One session's logic: its upstream MCP connections, the catalog built from them, and
 * what it persists to come back after eviction. It lives inside `SessionObject` (the
 * Durable Object) and is given its storage, bindings and `waitUntil`, so it does not
 * depend on the Agent base class.
 */
import type { CallToolResult, CompleteRequest, JSONRPCMessage, Progress, Root } from "@modelcontextprotocol/sdk/types.js";
import { ListRootsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { channelName } from "../src/core/bridge-protocol.js";
import { buildCatalog, catalogFingerprint, withoutTools, serverIdentity, type Catalog, type CachedTool, type ToolTarget } from "../src/core/catalog.js";
import {
  mergeServerConfig,
  parseServerConfig,
  resolveTimeouts,
  SessionBodySchema,
  type LocalServerConfig,
  type ServerConfigInput,
} from "../src/core/config.js";
import { ConnectionState, type ServerStatus } from "../src/core/connection-state.js";
import { META_TOOL_NAMES } from "../src/core/discovery/meta-tools.js";
import { McpEdgeError, messageOf } from "../src/core/errors.js";
import { wrapInstructions } from "../src/core/instructions.js";
import { checkToolResultSize } from "../src/core/limits.js";
import { normalizeToolResult, type NormalizedResult } from "../src/core/normalize.js";
import { readResourceAsResult } from "../src/core/resources.js";
import { checkServerUrl } from "../src/core/url-policy.js";
import { redactLogData } from "../src/core/redact-log.js";
import type { TurnStatus } from "../src/core/turn-lifecycle.js";
import { ulid } from "../src/core/ulid.js";
import { parseOrThrow } from "../src/core/validation.js";
import { hiddenFromListing, toolDecision, toolRules, type PermissionConfig } from "../src/core/permissions.js";
import { mergeProviders, type Providers } from "../src/core/sampling/providers.js";
import type { Env } from "../src/env.js";
import { readCodeModeSettings, readSettings, type CodeModeSettings, type DeploymentSettings } from "../src/env.js";
import type { ExecResult, ToolCallResult } from "../src/core/codemode/types.js";
import { ApprovalQueue, type ApprovalRecord, type ApprovalReply } from "./approvals.js";
import { runScript, type ExecRequest } from "./code-mode.js";
import { BridgeChannelTransport } from "./bridge-transport.js";
import { readCatalog, writeCatalog } from "./catalog-cache.js";
import { Discovery, type DiscoveryHost } from "./discovery.js";
import { DownstreamRegistry, type DownstreamCapability, type DownstreamClient } from "./downstream.js";
import { SessionEvents } from "./session-events.js";
import { deleteSession, loadSession, saveSession, type PersistedServer, type PersistedSession } from "./session-store.js";
import { DEFAULT_SAMPLING_HEARTBEAT_MS, ServerRequests } from "./server-requests.js";
import { UpstreamConnection } from "./upstream-connection.js";
import { ConnectionCredentials } from "./connection-credentials.js";
import { MISSING_KEY_MESSAGE } from "./credential-vault.js";
import type { TakeFlowResult } from "./credential-records.js";
import { beginAuthorization, diagnose, finishAuthorization, type DebugReport, type FlowContext } from "./oauth-flow.js";
import { oauthFetch } from "./oauth-fetch.js";
import type { RemoteServerConfig } from "../src/core/config.js";

export interface CallToolOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** The turn the call belongs to (progressive discovery's guard applies to it). */
  turn?: string;
  /** Who acts in the turn (passed on to turn-aware servers). */
  actorId?: string;
  /** Receives a server tool's result as the server sent it (the aggregated MCP endpoint passes it on untouched). */
  onResult?: (result: CallToolResult) => void;
  /**
   * Where `always` grants for `ask` tools go: a code-mode run passes its own set, so the
   * grant lasts for that run; without it they last for the session.
   */
  runGrants?: Set<string>;
}

export type AuthorizationOutcome = { ok: true; server: string; status: ServerStatus } | { ok: false; status: number; message: string };

/** A server slot: a live connection, or the reason its config cannot run. */
type Slot =
  | { kind: "connection"; input: ServerConfigInput | undefined; connection: UpstreamConnection; identity?: string; fingerprint?: string }
  | { kind: "invalid"; input: ServerConfigInput | undefined; status: ServerStatus };

export interface SessionDeps {
  storage: DurableObjectStorage;
  env: Env;
  waitUntil: (promise: Promise<unknown>) => void;
}

export class Session {
  private session: PersistedSession | undefined;
  private loaded: Promise<void> | undefined;
  private readonly slots = new Map<string, Slot>();
  /** Open bridge channels of this session, for messages the hub relays back. */
  private readonly channels = new Map<string, BridgeChannelTransport>();
  private catalog: Catalog | undefined;
  private readonly env: Env;
  readonly discovery: Discovery;
  /** The live event stream (server states, tool metrics, turns). */
  readonly events: SessionEvents;
  /** Requests waiting for a person: samplings, elicitations, tool calls held by `ask`. */
  readonly approvals: ApprovalQueue;
  /** The servers' sampling and elicitation requests. */
  readonly serverRequests: ServerRequests;
  /** MCP clients connected through the aggregated endpoint (`/mcp`), for upstream server→client requests. */
  readonly downstream = new DownstreamRegistry();

  constructor(private readonly deps: SessionDeps) {
    this.env = deps.env;
    this.events = new SessionEvents(deps.storage);
    this.discovery = new Discovery(this.discoveryHost());
    this.approvals = new ApprovalQueue(deps.storage, {
      check: (record, reply) => this.serverRequests.checkReply(record, reply),
      requested: (record) => this.events.emit("approval.requested", publicApproval(record)),
      resolved: (record, outcome) => this.events.emit("approval.resolved", { id: record.id, kind: record.kind, server: record.server, reply: outcome.reply }),
      orphan: (record, outcome) => this.serverRequests.answerOrphan(record, outcome),
    });
    this.serverRequests = new ServerRequests(this.serverRequestHost());
    // Downstream clients coming or going can change the roots every server sees.
    this.downstream.onChange((client) => {
      if (client.capabilities.roots) this.rootsChanged();
    });
  }

  /** The downstream client to ask for `capability`, if one declared it (see durable-objects/downstream.ts). */
  downstreamFor(capability: DownstreamCapability): DownstreamClient | undefined {
    return this.downstream.for(capability);
  }

  /** Roots from a downstream client that declared `roots`; undefined when none did (the session's own apply). */
  private async downstreamRoots(signal: AbortSignal | undefined): Promise<Root[] | undefined> {
    const client = this.downstreamFor("roots");
    if (!client) return undefined;
    try {
      const result = await client.request({ method: "roots/list" }, ListRootsResultSchema, signal ? { signal } : {});
      return result.roots;
    } catch (error) {
      console.warn("[session] roots/list to the downstream client failed; answering with the session's roots", messageOf(error));
      return undefined;
    }
  }

  /** Tells every connected server that the roots changed (`notifications/roots/list_changed`). */
  rootsChanged(): void {
    for (const slot of this.slots.values()) {
      if (slot.kind === "connection" && slot.connection.state === ConnectionState.connected) this.deps.waitUntil(slot.connection.sendRootsListChanged());
    }
  }

  /** Whether a server's tools and prompts are named `server_name` (false for `"prefix": false`). */
  namesPrefixed(server: string): boolean {
    const slot = this.slots.get(server);
    return !(slot?.kind === "connection" && slot.connection.config.prefix === false);
  }

  private serverRequestHost() {
    return {
      providers: (): Providers => mergeProviders(this.settings.providers, this.session?.providers as Providers | undefined),
      defaultModel: () => this.session?.model,
      recentModel: () => this.session?.recentModel,
      setRecentModel: (id: string) => {
        if (!this.session || this.session.recentModel === id) return;
        this.session = { ...this.session, recentModel: id };
        this.deps.waitUntil(saveSession(this.deps.storage, this.session));
      },
      permission: () => this.permission,
      serverPolicy: (server: string) => {
        const slot = this.slots.get(server);
        return slot?.kind === "connection" ? slot.connection.config.sampling : undefined;
      },
      serverLimits: (server: string) => {
        const slot = this.slots.get(server);
        return slot?.kind === "connection" ? slot.connection.config.samplingLimits : undefined;
      },
      hasCalled: (server: string) => this.session?.called?.includes(server) ?? false,
      isRemembered: (grant: string) => this.session?.grants?.includes(grant) ?? false,
      remember: (grant: string) => this.rememberGrant(grant),
      approvalTimeoutMs: () => this.approvalTimeoutMs,
      heartbeatMs: () => this.settings.samplingHeartbeatMs ?? DEFAULT_SAMPLING_HEARTBEAT_MS,
      connection: (server: string) => {
        const slot = this.slots.get(server);
        return slot?.kind === "connection" ? slot.connection : undefined;
      },
      downstreamFor: (capability: DownstreamCapability) => this.downstreamFor(capability),
      approvals: this.approvals,
      events: this.events,
    };
  }

  /** Pending approvals are rejected after this long: the session's setting, else the deployment's; undefined waits. */
  private get approvalTimeoutMs(): number | undefined {
    return this.session?.approvalTimeoutMs ?? this.settings.approvalTimeoutMs;
  }

  /** Remembers an `always` ("sampling:SERVER", "tool:NAME") for the rest of the session. */
  private async rememberGrant(grant: string): Promise<void> {
    if (!this.session || this.session.grants?.includes(grant)) return;
    this.session = { ...this.session, grants: [...(this.session.grants ?? []), grant] };
    await saveSession(this.deps.storage, this.session);
  }

  /** The session's permission ruleset (tools, mcp_sampling, mcp_elicitation). */
  private get permission(): PermissionConfig | undefined {
    return this.session?.permission as PermissionConfig | undefined;
  }

  private discoveryHost(): DiscoveryHost {
    const session = this;
    return {
      catalog: () => this.tools(),
      serverDescriptions: () => {
        const out: Record<string, string> = {};
        for (const [name, slot] of this.slots) if (slot.kind === "connection" && slot.connection.description) out[name] = slot.connection.description;
        return out;
      },
      get threshold() {
        return session.settings.searchThreshold;
      },
      get turn() {
        return session.session?.turn;
      },
      saveTurn: async (turn) => {
        if (!this.session) return;
        this.session = { ...this.session, turn };
        await saveSession(this.deps.storage, this.session);
      },
      dormantServers: () =>
        [...this.slots.entries()].flatMap(([name, slot]) => {
          if (slot.kind !== "connection" || slot.connection.state !== ConnectionState.disabled) return [];
          const description = slot.connection.description;
          return [{ name, status: "disabled" as const, ...(description ? { description } : {}) }];
        }),
      enableServer: (name) => this.connectServer(name),
      disableServer: (name) => this.disconnectServer(name),
      callCatalogTool: (name, args, signal) => this.callTool(name, args, { ...(signal ? { signal } : {}) }),
      // Code mode's `execute` runs the script on the same path as POST /exec.
      runCode: (request, signal) => this.exec(request, signal),
      // Read at each use, not captured: the binding is the one the object has now.
      get kv() {
        return session.env.CATALOG;
      },
      log: (message, data) => console.warn(`[session] ${message}`, JSON.stringify(data ?? {}).slice(0, 300)),
    };
  }

  private parsedSettings: DeploymentSettings | undefined;

  /** The deployment's settings, parsed once per instance (bindings do not change while it lives). */
  private get settings(): DeploymentSettings {
    this.parsedSettings ??= readSettings(this.env);
    return this.parsedSettings;
  }

  // ── Lifecycle ────────────────────────────────────────────────────────────

  /** Loads persisted state once per instance and restores connections in the background. */
  private ensureLoaded(): Promise<void> {
    this.loaded ??= (async () => {
      const stored = await loadSession(this.deps.storage);
      if (!stored) return;
      // Before anything emits: event ids continue where the evicted object left off.
      await this.events.restore();
      this.session = stored;
      for (const [name, persisted] of Object.entries(stored.servers)) this.restoreSlot(name, persisted);
      // Approvals outlive eviction; their deadlines come back with them.
      await this.approvals.restore();
    })();
    return this.loaded;
  }

  private restoreSlot(name: string, persisted: PersistedServer): void {
    const input = persisted.input as ServerConfigInput | undefined;
    const slot = this.makeSlot(name, input);
    this.slots.set(name, slot);
    if (slot.kind !== "connection") return;
    slot.identity = persisted.identity;
    slot.fingerprint = persisted.fingerprint;
    const connection = slot.connection;
    if (persisted.state === ConnectionState.connected) {
      // Reopen in the background (resuming the upstream session when it can), so
      // server-initiated messages flow again; callers that need it wait for it.
      this.deps.waitUntil(connection.connect(persisted.resume));
    } else {
      connection.restoreSettled(parseState(persisted.state), persisted.error);
    }
  }

  async requireSession(): Promise<PersistedSession> {
    await this.ensureLoaded();
    if (!this.session) throw new McpEdgeError("sessionNotFound", "session not found");
    return this.session;
  }

  /** The session, if it exists and belongs to `principal`; otherwise the same 404 as a missing one. */
  async requireOwnedBy(principal: string): Promise<PersistedSession> {
    await this.ensureLoaded();
    if (!this.session || this.session.principal !== principal) throw new McpEdgeError("sessionNotFound", "session not found");
    return this.session;
  }

  async create(id: string, principal: string, body: unknown): Promise<{ id: string; servers: Record<string, ServerStatus> }> {
    await this.ensureLoaded();
    if (this.session) throw new McpEdgeError("badRequest", "session already exists");
    const parsed = parseOrThrow(SessionBodySchema, body ?? {});
    const inputs = Object.entries(parsed.servers ?? {}).map(([name, raw]) => [name, this.parseSessionEntry(name, raw)] as const);
    this.session = {
      id,
      principal,
      createdAt: Date.now(),
      roots: parsed.roots ?? [],
      servers: {},
      ...(parsed.providers ? { providers: parsed.providers } : {}),
      ...(parsed.model ? { model: parsed.model } : {}),
      ...(parsed.permission ? { permission: parsed.permission } : {}),
      ...(parsed.approvalTimeoutMs ? { approvalTimeoutMs: parsed.approvalTimeoutMs } : {}),
    };
    const names = new Set([...Object.keys(this.settings.servers), ...inputs.map(([name]) => name)]);
    const sessionInputs = new Map(inputs);
    for (const name of names) this.slots.set(name, this.makeSlot(name, sessionInputs.get(name)));
    await this.persist();
    await Promise.all([...this.slots.values()].map((slot) => this.startSlot(slot)));
    return { id, servers: this.statuses() };
  }

  async destroy(): Promise<void> {
    await this.requireSession();
    const slots = [...this.slots.values()];
    this.slots.clear();
    this.catalog = undefined;
    this.session = undefined;
    await this.serverRequests.cancelAll("the session was deleted");
    this.events.closeAll();
    await deleteSession(this.deps.storage);
    await this.events.forget();
    await Promise.all(slots.map((slot) => (slot.kind === "connection" ? slot.connection.close() : undefined)));
  }

  // ── Servers ──────────────────────────────────────────────────────────────

  /** Validates a session-supplied entry: shape (400 naming unknown keys) and URL policy. */
  private parseSessionEntry(name: string, raw: unknown): ServerConfigInput {
    const input = parseServerConfig(name, raw);
    if (input.type === "remote" || (input.type === undefined && input.url !== undefined)) {
      const check = checkServerUrl(input.url!, { allowPrivate: this.settings.allowPrivateUrls });
      if (!check.ok) throw new McpEdgeError("invalidConfig", `server "${name}": ${check.reason}`, { server: name, path: ["url"] });
    }
    return input;
  }

  private makeSlot(name: string, input: ServerConfigInput | undefined): Slot {
    const settings = this.settings;
    const merged = mergeServerConfig(name, settings.servers[name], input);
    if (!merged.ok) return { kind: "invalid", input, status: merged.enabled ? { status: "failed", error: merged.error } : { status: "disabled" } };
    const config = merged.config;
    if (config.type === "remote") {
      const check = checkServerUrl(config.url, { allowPrivate: settings.allowPrivateUrls });
      if (!check.ok) return { kind: "invalid", input, status: { status: "failed", error: check.reason } };
    }
    const credentials =
      config.type === "remote" && config.oauth !== false && this.env.CREDENTIALS_KEY
        ? new ConnectionCredentials(this.env.CREDENTIALS.getByName(this.principal), config.url, config.oauth?.clientId)
        : undefined;
    const connection = new UpstreamConnection(name, config, resolveTimeouts(config, settings.requestTimeoutMs), {
      ...(credentials ? { credentials } : {}),
      bridgeTransport: (local) => this.bridgeTransport(name, local),
      serverRequests: {
        sampling: (c, params, context) => this.serverRequests.sampling(c, params, context),
        elicitation: (c, params, context) => this.serverRequests.elicitation(c, params, context),
      },
      onLog: (c, log) => {
        if (this.isCurrent(name, c)) {
          this.events.emit("log", { server: name, level: log.level, ...(log.logger ? { logger: log.logger } : {}), data: redactLogData(log.data) });
        }
      },
      roots: () => this.session?.roots ?? [],
      downstreamRoots: (signal) => this.downstreamRoots(signal),
      onResourceUpdated: (c, uri) => {
        if (this.isCurrent(name, c)) this.events.emit("resource.updated", { server: name, uri });
      },
      onToolsChanged: (c) => this.onToolsChanged(name, c),
      onStateChanged: (c) => this.onConnectionState(name, c),
      log: (level, message, data) => console[level === "info" ? "log" : level](`[session] ${message}`, JSON.stringify(data ?? {}).slice(0, 300)),
    });
    return { kind: "connection", input, connection };
  }

  // ── OAuth (signing in to remote servers) ─────────────────────────────────

  private oauthServer(name: string): { connection: UpstreamConnection; config: RemoteServerConfig; credentials: ConnectionCredentials } {
    const connection = this.requireConnection(name);
    const config = connection.config;
    if (config.type !== "remote") throw new McpEdgeError("badRequest", `server "${name}" is not a remote server; OAuth applies to remote servers only`, { server: name });
    if (config.oauth === false) throw new McpEdgeError("badRequest", `server "${name}" has OAuth disabled (oauth: false)`, { server: name });
    if (!this.env.CREDENTIALS_KEY || !connection.credentialsSource) throw new McpEdgeError("notConfigured", MISSING_KEY_MESSAGE);
    return { connection, config, credentials: connection.credentialsSource };
  }

  private flowContext(session: PersistedSession): FlowContext {
    return {
      vault: this.env.CREDENTIALS.getByName(this.principal),
      principal: this.principal,
      sessionId: session.id,
      fetchFn: oauthFetch(this.settings.allowPrivateUrls),
    };
  }

  /** `POST …/servers/:name/auth`: the URL to send the user to; the server stays as it is until the callback. */
  async beginAuthorization(name: string, origin: string): Promise<{ authorizationUrl: string }> {
    const session = await this.requireSession();
    const { connection, config, credentials } = this.oauthServer(name);
    await connection.settled();
    return beginAuthorization(this.flowContext(session), {
      server: name,
      config,
      key: await credentials.key(),
      origin: this.env.PUBLIC_URL?.replace(/\/+$/, "") || origin,
      challenge: connection.authChallenge,
    });
  }

  /**
   * The callback (from the Worker, by RPC): the state's nonce names the pending flow in
   * the principal's vault. Unknown, used, expired or foreign → refused, nothing changes.
   * A failed exchange stores nothing; success commits the credentials and connects.
   */
  async completeAuthorization(nonce: string, params: { code?: string; error?: string }): Promise<AuthorizationOutcome> {
    await this.ensureLoaded();
    const session = this.session;
    const refused = (message: string): AuthorizationOutcome => ({ ok: false, status: 400, message });
    if (!session || !this.env.CREDENTIALS_KEY) return refused("unknown or expired authorization request (state)");
    const context = this.flowContext(session);
    const taken = (await context.vault.takeFlow(nonce, session.id)) as TakeFlowResult;
    if (!taken.ok) return refused(taken.reason === "expired" ? "this authorization request expired (10 minutes); start again" : "unknown or already used authorization request (state)");
    const flow = taken.flow;
    if (flow.sessionId !== session.id || flow.principal !== this.principal) return refused("unknown or already used authorization request (state)");
    if (params.error) return { ok: false, status: 403, message: `the authorization server answered: ${params.error.slice(0, 100)}` };
    if (!params.code) return refused("the callback carries no authorization code");
    const slot = this.slots.get(flow.server);
    const connection = slot?.kind === "connection" ? slot.connection : undefined;
    const credentials = connection?.credentialsSource;
    if (!connection || connection.config.type !== "remote" || !credentials || (await credentials.key()) !== flow.key || connection.config.url !== flow.serverUrl) {
      return { ok: false, status: 409, message: `server "${flow.server}" changed since the authorization started; start again` };
    }
    let committed;
    try {
      committed = await finishAuthorization(context, flow, params.code, connection.config);
    } catch (error) {
      console.warn("[session] token exchange failed", JSON.stringify({ server: flow.server, reason: messageOf(error).slice(0, 200) }));
      return { ok: false, status: 502, message: `the token exchange with the authorization server failed: ${messageOf(error).slice(0, 200)}` };
    }
    await context.vault.commit(flow.key, committed);
    credentials.forget();
    await connection.connect();
    return { ok: true, server: flow.server, status: connection.status };
  }

  /** `DELETE …/servers/:name/auth`: forgets the principal's credentials for the server. */
  async signOut(name: string): Promise<ServerStatus> {
    await this.requireSession();
    const { connection, credentials } = this.oauthServer(name);
    await this.env.CREDENTIALS.getByName(this.principal).drop(await credentials.key());
    credentials.forget();
    if (connection.state !== ConnectionState.disabled) await connection.connect();
    return connection.status;
  }

  /** `POST …/servers/:name/debug`: a hand-made initialize and discovery; nothing stored. */
  async debugServer(name: string): Promise<DebugReport & { credentials: boolean }> {
    await this.requireSession();
    const connection = this.requireConnection(name);
    const config = connection.config;
    if (config.type !== "remote") throw new McpEdgeError("badRequest", `server "${name}" is not a remote server`, { server: name });
    const report = await diagnose(config, oauthFetch(this.settings.allowPrivateUrls));
    const credentials = connection.credentialsSource;
    const held = credentials ? await this.env.CREDENTIALS.getByName(this.principal).summary(await credentials.key()) : undefined;
    return { ...report, credentials: Boolean(held?.hasAccessToken) };
  }

  // ── Bridged (local) servers ──────────────────────────────────────────────

  /**
   * The principal (user or service) the session belongs to, recorded at creation: its
   * bridges, OAuth credentials and approvals are that principal's. Only a loaded session
   * has one (every route checks ownership first, so handlers always find it loaded).
   */
  get principal(): string {
    if (!this.session) throw new McpEdgeError("sessionNotFound", "session not found");
    return this.session.principal;
  }

  private bridgeTransport(name: string, config: LocalServerConfig): BridgeChannelTransport | string {
    if (!config.bridge || !config.server) return 'a local server needs "bridge" (the bridge id) and "server" (a server the bridge offers)';
    if (!this.session) return "session not found";
    const hub = this.env.BRIDGES.getByName(this.principal);
    const nonce = [...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, "0")).join("");
    return new BridgeChannelTransport(hub, channelName(this.session.id, name, nonce), this.session.id, config.bridge, config.server, this.channels);
  }

  bridgeDeliver(channel: string, message: Record<string, unknown>): void {
    this.channels.get(channel)?.deliver(message as unknown as JSONRPCMessage);
  }

  bridgeChannelClosed(channel: string, reason: string): void {
    this.channels.get(channel)?.closedByHub(reason);
  }

  /** A bridge (re)connected: its servers that failed come back by themselves. */
  async bridgeAvailable(bridge: string): Promise<void> {
    await this.ensureLoaded();
    await Promise.all(
      [...this.slots.values()].map(async (slot) => {
        if (slot.kind !== "connection") return;
        const c = slot.connection;
        if (c.config.type !== "local" || c.config.bridge !== bridge) return;
        if (c.state === ConnectionState.failed || c.state === ConnectionState.idle) await c.connect();
      }),
    );
  }

  private async startSlot(slot: Slot): Promise<void> {
    if (slot.kind !== "connection") return;
    if (slot.connection.config.enabled === false) {
      await slot.connection.disable();
      return;
    }
    await slot.connection.connect();
  }

  async putServer(name: string, raw: unknown): Promise<ServerStatus> {
    await this.requireSession();
    const input = this.parseSessionEntry(name, raw);
    await this.dropSlot(name);
    const slot = this.makeSlot(name, input);
    this.slots.set(name, slot);
    this.invalidateCatalog();
    await this.persist();
    await this.startSlot(slot);
    return this.statusOf(slot);
  }

  async deleteServer(name: string): Promise<void> {
    await this.requireSession();
    this.requireSlot(name);
    await this.dropSlot(name);
    this.invalidateCatalog();
    await this.persist();
  }

  async disconnectServer(name: string): Promise<ServerStatus> {
    await this.requireSession();
    const slot = this.requireSlot(name);
    await this.serverRequests.cancelServer(name, `server "${name}" was disconnected`);
    if (slot.kind === "connection") await slot.connection.disable();
    return this.statusOf(slot);
  }

  async connectServer(name: string): Promise<ServerStatus> {
    await this.requireSession();
    const slot = this.requireSlot(name);
    if (slot.kind === "connection") await slot.connection.connect();
    return this.statusOf(slot);
  }

  private async dropSlot(name: string): Promise<void> {
    const slot = this.slots.get(name);
    this.slots.delete(name);
    // Its samplings and approvals end before the connection does.
    if (slot) await this.serverRequests.cancelServer(name, `server "${name}" was removed`);
    if (slot?.kind === "connection") await slot.connection.close();
  }

  private requireSlot(name: string): Slot {
    const slot = this.slots.get(name);
    if (!slot) throw new McpEdgeError("serverNotFound", `no server named "${name}" in this session`, { server: name });
    return slot;
  }

  private requireConnection(name: string): UpstreamConnection {
    const slot = this.requireSlot(name);
    if (slot.kind !== "connection") throw new McpEdgeError("serverUnavailable", `server "${name}" is ${slot.status.status}: ${slot.status.error ?? ""}`.trim());
    return slot.connection;
  }

  private statusOf(slot: Slot): ServerStatus {
    return slot.kind === "connection" ? slot.connection.status : slot.status;
  }

  async status() {
    const session = await this.requireSession();
    await Promise.all([...this.slots.values()].map((slot) => (slot.kind === "connection" ? slot.connection.settled() : undefined)));
    const usage = this.serverRequests.usage();
    return { id: session.id, servers: this.statuses(), ...(Object.keys(usage).length > 0 ? { usage } : {}) };
  }

  // ── Approvals ────────────────────────────────────────────────────────────

  async listApprovals() {
    await this.requireSession();
    return { approvals: (await this.approvals.list()).map(publicApproval) };
  }

  async replyApproval(id: string, reply: ApprovalReply) {
    await this.requireSession();
    const record = await this.approvals.reply(id, reply);
    return { id: record.id, kind: record.kind, server: record.server, reply: reply.reply };
  }

  private statuses(): Record<string, ServerStatus> {
    const out: Record<string, ServerStatus> = {};
    for (const name of [...this.slots.keys()].sort()) out[name] = this.statusOf(this.slots.get(name)!);
    return out;
  }

  // ── Connection callbacks ─────────────────────────────────────────────────

  private onConnectionState(name: string, connection: UpstreamConnection): void {
    if (!this.isCurrent(name, connection)) return;
    if (connection.state === ConnectionState.connecting) return;
    this.events.emit("server.status", { server: name, ...connection.status });
    this.invalidateCatalog();
    this.deps.waitUntil(this.persist());
  }

  private onToolsChanged(name: string, connection: UpstreamConnection): void {
    if (!this.isCurrent(name, connection)) return;
    this.events.emit("tools.changed", { server: name, tools: connection.tools.length });
    this.invalidateCatalog();
    const slot = this.slots.get(name);
    if (slot?.kind !== "connection") return;
    const tools = connection.tools;
    this.deps.waitUntil(
      (async () => {
        const identity = (slot.identity ??= await serverIdentity(connection.config));
        const fingerprint = await catalogFingerprint(tools);
        if (!this.isCurrent(name, connection)) return;
        const changed = slot.fingerprint !== fingerprint;
        slot.fingerprint = fingerprint;
        await this.persist();
        if (changed) await writeCatalog(this.env.CATALOG, identity, fingerprint, tools).catch((e) => console.warn("catalog cache write failed", messageOf(e)));
      })(),
    );
  }

  private isCurrent(name: string, connection: UpstreamConnection): boolean {
    const slot = this.slots.get(name);
    return slot?.kind === "connection" && slot.connection === connection;
  }

  private invalidateCatalog(): void {
    this.catalog = undefined;
  }

  private async persist(): Promise<void> {
    const session = this.session;
    if (!session) return;
    const servers: Record<string, PersistedServer> = {};
    for (const [name, slot] of this.slots) {
      if (slot.kind === "invalid") {
        servers[name] = { input: slot.input, state: slot.status.status, ...(slot.status.error ? { error: slot.status.error } : {}) };
        continue;
      }
      const c = slot.connection;
      // A connection still (re)starting keeps its last settled record.
      const state = c.state === ConnectionState.connecting || c.state === ConnectionState.idle ? (session.servers[name]?.state ?? c.state) : c.state;
      servers[name] = {
        input: slot.input,
        state,
        ...(c.error ? { error: c.error } : {}),
        ...(c.resume ? { resume: c.resume } : {}),
        ...(slot.identity ? { identity: slot.identity } : {}),
        ...(slot.fingerprint ? { fingerprint: slot.fingerprint } : {}),
        tools: c.tools.length,
      };
    }
    this.session = { ...this.session!, servers };
    await saveSession(this.deps.storage, this.session);
  }

  // ── Tools ────────────────────────────────────────────────────────────────

  /** The model-facing catalog; after eviction, known servers come from the KV cache while they reconnect. */
  async tools(): Promise<Catalog> {
    await this.requireSession();
    if (this.catalog) return this.catalog;
    const servers: Array<{ server: string; tools: CachedTool[] }> = [];
    let withResources = false;
    await Promise.all(
      [...this.slots.entries()].map(async ([name, slot]) => {
        if (slot.kind !== "connection") return;
        const c = slot.connection;
        if (c.state === ConnectionState.connecting && slot.identity && slot.fingerprint) {
          const cached = await readCatalog(this.env.CATALOG, slot.identity, slot.fingerprint);
          if (cached) {
            servers.push({ server: name, tools: cached, ...prefixOf(c) });
            if (c.resume?.capabilities?.resources) withResources = true;
            return;
          }
        }
        await c.settled();
        if (c.state !== ConnectionState.connected) return;
        servers.push({ server: name, tools: c.tools, ...prefixOf(c) });
        if (c.capabilities?.resources) withResources = true;
      }),
    );
    const rules = toolRules(this.permission);
    const catalog = withoutTools(buildCatalog(servers, { withResourceTools: withResources, reserved: META_TOOL_NAMES }), (name) => hiddenFromListing(rules, name));
    // Only a catalog built from live connections is kept.
    if ([...this.slots.values()].every((s) => s.kind !== "connection" || s.connection.state !== ConnectionState.connecting)) this.catalog = catalog;
    return catalog;
  }

  /**
   * Calls a tool by its model-facing name: a meta-tool, or a catalog tool (checked by the
   * discovery guard when the call names a turn served in search mode).
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<NormalizedResult> {
    const { structuredContent: _structured, ...normalized } = await this.invokeTool(name, args, options);
    return normalized;
  }

  /** `callTool`, keeping the server's `structuredContent` (what a script receives as the tool's value). */
  private async invokeTool(name: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<ToolCallResult> {
    const { signal, onProgress, turn } = options;
    await this.requireSession();
    if (this.discovery.isMetaTool(name)) return this.discovery.callMeta(name, args, turn, signal);
    if (this.discovery.isExecuteTool(name)) return this.discovery.callExecute(args, signal);
    const refused = await this.discovery.guard(name, turn);
    if (refused) return refused;
    const decision = toolDecision(toolRules(this.permission), name);
    if (decision === "deny") throw new McpEdgeError("forbidden", `tool "${name}" is denied by the session's permission rules`, { name });
    const target = (await this.tools()).targets.get(name) ?? this.recoverableTarget(name);
    if (!target) throw new McpEdgeError("toolNotFound", `unknown tool "${name}"`, { name });
    if (target.kind === "synthetic") return this.callResourceTool(target.tool, args, signal);
    const connection = this.requireConnection(target.server);
    const session = this.session!;
    if (decision === "ask" && !session.grants?.includes(`tool:${name}`) && !options.runGrants?.has(name)) {
      const refusal = await this.askForTool(name, target.server, args, signal, options.runGrants);
      if (refusal) return refusal;
    }
    // Read again: an approval may have waited, and `always` changed the record meanwhile.
    const current = this.session ?? session;
    if (!current.called?.includes(target.server)) {
      this.session = { ...current, called: [...(current.called ?? []), target.server] };
      await saveSession(this.deps.storage, this.session);
    }
    // The tool metrics of the event stream: started, progress, finished (duration, error flag).
    // A ULID, not a per-instance counter: ids stay unique across evictions, for subscribers that resume.
    const callId = ulid();
    const started = Date.now();
    this.events.emit("tool.started", { callId, name, server: target.server, tool: target.tool, ...(turn !== undefined ? { turnId: turn } : {}) });
    try {
      const result = await connection.callTool(target.tool, args, {
        ...(signal ? { signal } : {}),
        onProgress: (progress) => {
          this.events.emit("tool.progress", { callId, name, progress: progress.progress, ...(progress.total !== undefined ? { total: progress.total } : {}), ...(progress.message ? { message: progress.message } : {}) });
          onProgress?.(progress);
        },
        ...(turn !== undefined ? { turn: { sessionId: session.id, turnId: turn, ...(options.actorId !== undefined ? { actorId: options.actorId } : {}) } } : {}),
      });
      options.onResult?.(result);
      const normalized = normalizeToolResult(result);
      checkToolResultSize(normalized);
      this.events.emit("tool.finished", { callId, name, server: target.server, ms: Date.now() - started, isError: normalized.isError });
      return result.structuredContent !== undefined && result.structuredContent !== null ? { ...normalized, structuredContent: result.structuredContent } : normalized;
    } catch (error) {
      this.events.emit("tool.finished", { callId, name, server: target.server, ms: Date.now() - started, isError: true, error: messageOf(error) });
      throw error;
    }
  }

  /** Holds a call for a person's approval; answers the refusal as a tool error (the model reads it), or undefined to go on. */
  private async askForTool(name: string, server: string, args: Record<string, unknown>, signal: AbortSignal | undefined, runGrants?: Set<string>): Promise<NormalizedResult | undefined> {
    const preview = JSON.stringify(args);
    const outcome = await this.approvals.request(
      { kind: "tool", server, metadata: { tool: name, arguments: preview.length > 500 ? `${preview.slice(0, 500)}…` : preview } },
      { ...(signal ? { signal } : {}), ...(this.approvalTimeoutMs !== undefined ? { timeoutMs: this.approvalTimeoutMs } : {}) },
    );
    if (outcome.reply === "once") return undefined;
    if (outcome.reply === "always") {
      if (runGrants) runGrants.add(name);
      else await this.rememberGrant(`tool:${name}`);
      return undefined;
    }
    if (outcome.reply === "cancelled") throw new McpEdgeError("cancelled", "the call was cancelled while it waited for approval");
    const why = outcome.reply === "timeout" ? "the approval timed out" : "the user rejected this tool call";
    return { output: `Tool call refused: ${why}.`, attachments: [], metadata: {}, isError: true };
  }

  /**
   * A tool of a server that failed since it was listed (lost connection): still
   * callable, so the call can reconnect it once instead of answering "unknown tool". A
   * server that needs a sign-in since answers 502 with `data.status: "needs_auth"`.
   */
  private recoverableTarget(name: string): ToolTarget | undefined {
    const recoverable: readonly ConnectionState[] = [ConnectionState.connected, ConnectionState.failed, ConnectionState.needsAuth];
    const servers = [...this.slots.entries()].flatMap(([server, slot]) =>
      slot.kind === "connection" && recoverable.includes(slot.connection.state)
        ? [{ server, tools: slot.connection.tools, ...prefixOf(slot.connection) }]
        : [],
    );
    const target = buildCatalog(servers, { withResourceTools: false, reserved: META_TOOL_NAMES }).targets.get(name);
    return target;
  }

  private async callResourceTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<NormalizedResult> {
    const server = typeof args.server === "string" ? args.server : undefined;
    if (tool === "read_mcp_resource") {
      if (!server || typeof args.uri !== "string") throw new McpEdgeError("badRequest", "read_mcp_resource needs string arguments server and uri");
      const result = await this.requireConnection(server).readResource(args.uri, signal);
      return readResourceAsResult(result.contents);
    }
    const listing = tool === "list_mcp_resources" ? await this.resources(server, signal) : await this.resourceTemplates(server, signal);
    return { output: JSON.stringify(listing, null, 2), attachments: [], metadata: {}, isError: false };
  }

  // ── Code mode ────────────────────────────────────────────────────────────

  /** Runs a script with the catalog's tools (see code-mode.ts); a script error is the result's `error`. */
  async exec(request: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
    await this.requireSession();
    this.codeModeSettings ??= readCodeModeSettings(this.env);
    // `always` for an `ask` tool holds for this run only (the person approved this script).
    const runGrants = new Set<string>();
    return runScript(
      {
        settings: this.codeModeSettings,
        loader: this.env.LOADER,
        // Calls are authorized like direct calls: a denied tool is never called (PermissionDenied in
        // the script), an `ask` tool waits for its approval inside invokeTool.
        caller: {
          call: (name, args, callSignal) => this.invokeTool(name, args, { signal: callSignal, runGrants }),
          authorize: async (name) => (toolDecision(toolRules(this.permission), name) === "deny" ? "deny" : "allow"),
        },
        directory: async () => (await this.tools()).tools.map((t) => ({ name: t.name, server: t.server, description: t.description })),
        search: async (query, limit) => {
          const [catalog, { results }] = await Promise.all([this.tools(), this.discovery.search(query, limit)]);
          return results.map(({ name, server, description }) => {
            const inputSchema = catalog.byName.get(name)?.inputSchema;
            return { name, server, description, ...(inputSchema ? { inputSchema } : {}) };
          });
        },
      },
      request,
      signal,
    );
  }

  private codeModeSettings: CodeModeSettings | undefined;

  // ── Turns ────────────────────────────────────────────────────────────────

  async startTurn(): Promise<{ id: string }> {
    await this.requireSession();
    return { id: ulid() };
  }

  /** Tells every connected turn-aware server that the turn ended, in parallel, at most 1 s each. */
  async endTurn(turnId: string, status: TurnStatus) {
    const session = await this.requireSession();
    const notified: string[] = [];
    const timedOut: string[] = [];
    const failed: string[] = [];
    await Promise.all(
      [...this.slots.entries()].map(async ([name, slot]) => {
        if (slot.kind !== "connection" || slot.connection.state !== ConnectionState.connected || !slot.connection.turnAware) return;
        const outcome = await slot.connection.notifyTurnEnd({ sessionId: session.id, turnId }, status);
        (outcome === "notified" ? notified : outcome === "timedOut" ? timedOut : failed).push(name);
      }),
    );
    const ended = { id: turnId, status, notified: notified.sort(), timedOut: timedOut.sort(), failed: failed.sort() };
    this.events.emit("turn.ended", { turnId, status, notified: ended.notified, timedOut: ended.timedOut });
    return ended;
  }

  // ── Resources, prompts, instructions ─────────────────────────────────────

  private async connectedWith(capability: "resources" | "prompts", only?: string): Promise<UpstreamConnection[]> {
    await this.requireSession();
    if (only !== undefined) this.requireSlot(only);
    const out: UpstreamConnection[] = [];
    for (const [name, slot] of this.slots) {
      if (slot.kind !== "connection" || (only !== undefined && name !== only)) continue;
      await slot.connection.settled();
      if (slot.connection.state === ConnectionState.connected && slot.connection.capabilities?.[capability]) out.push(slot.connection);
    }
    return out;
  }

  async resources(only?: string, signal?: AbortSignal) {
    const connections = await this.connectedWith("resources", only);
    const lists = await Promise.all(connections.map(async (c) => (await c.listResources(signal)).map((r) => ({ ...r, server: c.name }))));
    return lists.flat();
  }

  async resourceTemplates(only?: string, signal?: AbortSignal) {
    const connections = await this.connectedWith("resources", only);
    const lists = await Promise.all(connections.map(async (c) => (await c.listResourceTemplates(signal)).map((r) => ({ ...r, server: c.name }))));
    return lists.flat();
  }

  async readResource(server: string, uri: string, signal?: AbortSignal) {
    await this.requireSession();
    return this.requireConnection(server).readResource(uri, signal);
  }

  async prompts(signal?: AbortSignal) {
    const connections = await this.connectedWith("prompts");
    const lists = await Promise.all(connections.map(async (c) => (await c.listPrompts(signal)).map((p) => ({ ...p, server: c.name }))));
    return lists.flat();
  }

  async getPrompt(server: string, name: string, args: Record<string, string> | undefined, signal?: AbortSignal) {
    await this.requireSession();
    return this.requireConnection(server).getPrompt(name, args, signal);
  }

  async subscribeResource(server: string, uri: string, signal?: AbortSignal): Promise<void> {
    await this.requireSession();
    await this.requireConnection(server).subscribeResource(uri, signal);
  }

  async unsubscribeResource(server: string, uri: string, signal?: AbortSignal): Promise<void> {
    await this.requireSession();
    await this.requireConnection(server).unsubscribeResource(uri, signal);
  }

  /** `completion/complete` on one server (the ref already names that server's prompt or resource). */
  async complete(server: string, params: CompleteRequest["params"], signal?: AbortSignal) {
    await this.requireSession();
    return this.requireConnection(server).complete(params, signal);
  }

  async instructions(): Promise<{ instructions: string; servers: Array<{ server: string; instructions: string }> }> {
    await this.requireSession();
    const servers: Array<{ server: string; instructions: string }> = [];
    for (const name of [...this.slots.keys()].sort()) {
      const slot = this.slots.get(name)!;
      if (slot.kind !== "connection") continue;
      await slot.connection.settled();
      const text = slot.connection.instructions;
      if (slot.connection.state === ConnectionState.connected && text && text.trim()) servers.push({ server: name, instructions: text });
    }
    return { instructions: servers.map((s) => wrapInstructions(s.server, s.instructions)).join("\n\n"), servers };
  }
}

/** A server configured with `"prefix": false` has its tools named without `NAME_`. */
function prefixOf(connection: UpstreamConnection): { prefix?: false } {
  return connection.config.prefix === false ? { prefix: false } : {};
}

const SETTLED_STATES: readonly string[] = [
  ConnectionState.disabled,
  ConnectionState.failed,
  ConnectionState.needsAuth,
  ConnectionState.needsClientRegistration,
];

/** A persisted state string, read defensively: anything unexpected counts as failed. */
function parseState(value: string): ConnectionState {
  return SETTLED_STATES.includes(value) ? (value as ConnectionState) : ConnectionState.failed;
}

/** An approval as the API shows it: no pending request params (they may hold content the metadata only previews). */
function publicApproval(record: ApprovalRecord) {
  return { id: record.id, kind: record.kind, server: record.server, createdAt: record.createdAt, metadata: record.metadata, ...(record.expiresAt !== undefined ? { expiresAt: new Date(record.expiresAt).toISOString() } : {}) };
}
