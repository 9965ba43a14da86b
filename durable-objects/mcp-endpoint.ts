/**
 * The aggregated MCP endpoint, `/v1/sessions/:id/mcp`: the whole session as one MCP
 * server over Streamable HTTP (the SDK's `Server` on its Web-standard transport), inside
 * the session object. Each downstream MCP session (one `initialize`) gets its own
 * transport and `Server`, kept in memory by `Mcp-Session-Id`; an id this instance does
 * not know (never issued, deleted, or lost when the object was evicted) gets the 404
 * the spec prescribes, so the client initializes again.
 *
 * Tools are the session's catalog (or the search meta-tools), called through
 * `session.callTool` (events, metrics and the turn guard apply); resources keep their
 * URIs and name their server in `_meta`; prompts are named like tools. Progress and
 * cancellation pass both ways, and the downstream client answers upstream servers'
 * `roots/list` (and, through `session.downstreamFor`, sampling and elicitation).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type RequestId,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { McpEndpointQuery } from "../src/api/schemas.js";
import {
  namePrompts,
  normalizedToContent,
  presentListed,
  PROMPT_META_KEY,
  refsResolve,
  requestedServer,
  requestedTurn,
  resourceOwner,
  SERVER_META_KEY,
} from "../src/core/aggregate.js";
import { hostAllowed } from "../src/core/allowed-hosts.js";
import type { ApiTool } from "../src/core/catalog.js";
import type { SessionEvent } from "../src/core/events.js";
import { parseOrThrow } from "../src/core/validation.js";
import type { DownstreamClient } from "./downstream.js";
import { safeJsonSchemaValidator } from "./json-schema-validator.js";
import { jsonRpcError, RESOURCE_NOT_FOUND, toolFailure, wire } from "./mcp-errors.js";
import type { Session } from "./session.js";
import { CLIENT_INFO } from "./upstream-connection.js";

/** Downstream MCP sessions kept per mcp-edge session; past it the least recently used is closed. */
export const MAX_DOWNSTREAM_SESSIONS = 16;
/** How long an upstream request relayed to a downstream client may wait (a human may be answering); progress resets it. */
export const DOWNSTREAM_REQUEST_TIMEOUT_MS = 10 * 60_000;
/**
 * How long a request with no call of the client's in flight waits for the client's
 * standalone GET stream (which clients open right after `initialized`): without that
 * stream the transport would drop it.
 */
export const STANDALONE_STREAM_WAIT_MS = 5_000;

type ListingOptions = z.infer<typeof McpEndpointQuery>;

/** RFC 5424 severities, least severe first (`logging/setLevel` passes this one and above). */
const LOG_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

interface Downstream {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  listing: ListingOptions;
  /** This client's tool calls in flight, oldest first, with the server each went to (when known). */
  inflight: Array<{ id: RequestId; server?: string }>;
  /** The client's `logging/setLevel`; unset: every level. */
  logLevel?: LoggingLevel;
  lastUsed: number;
  /** Resolves once the client opened its standalone GET stream. */
  standalone: Promise<void>;
  standaloneOpened: () => void;
  /** Resources this client subscribed to, as subscription keys (server + URI). */
  subscriptions: Set<string>;
  /** The catalog fingerprint this client last listed, so list_changed is sent only for real changes. */
  listedFingerprint?: string;
  unregister?: () => void;
}

/** One upstream subscription per (server, URI), however many downstream clients asked for it. */
const subscriptionKey = (server: string, uri: string) => JSON.stringify([server, uri]);

export class McpEndpoint {
  private readonly downstreams = new Map<string, Downstream>();
  /** Subscription key → how many downstream clients hold it. */
  private readonly subscribers = new Map<string, number>();
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly session: Session,
    private readonly options: { allowedHosts: readonly string[] } = { allowedHosts: [] },
  ) {}

  /** Serves one HTTP request of the endpoint (POST, GET or DELETE). */
  async handle(request: Request): Promise<Response> {
    if (!hostAllowed({ host: request.headers.get("host") ?? new URL(request.url).host, origin: request.headers.get("origin") }, this.options.allowedHosts)) {
      await discardBody(request);
      return jsonRpcError(403, -32000, "Forbidden: this Host or Origin is not allowed (MCP_ALLOWED_HOSTS)");
    }
    try {
      await this.session.requireSession();
    } catch (error) {
      this.closeAll();
      await discardBody(request);
      throw error;
    }
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const downstream = this.downstreams.get(id);
      if (!downstream) {
        await discardBody(request);
        return jsonRpcError(404, -32001, "Session not found: initialize a new MCP session");
      }
      downstream.lastUsed = Date.now();
      const response = await downstream.transport.handleRequest(request);
      if (request.method === "GET" && response.status === 200) downstream.standaloneOpened();
      return response;
    }
    if (request.method !== "POST") return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    return this.open(request);
  }

  /** A POST without a session id: an initialize opens a new downstream session (anything else is refused by the transport). */
  private async open(request: Request): Promise<Response> {
    const params = Object.fromEntries(new URL(request.url).searchParams);
    if (!McpEndpointQuery.safeParse(params).success) await discardBody(request);
    const listing = parseOrThrow(McpEndpointQuery, params);
    const { instructions } = await this.session.instructions();
    const server = new Server(CLIENT_INFO, {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
      ...(instructions ? { instructions } : {}),
      jsonSchemaValidator: safeJsonSchemaValidator(),
    });
    let standaloneOpened = () => {};
    const standalone = new Promise<void>((resolve) => {
      standaloneOpened = resolve;
    });
    const downstream: Downstream = {
      server,
      listing,
      inflight: [],
      subscriptions: new Set(),
      lastUsed: Date.now(),
      standalone,
      standaloneOpened,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => this.adopt(sessionId, downstream),
      }),
    };
    downstream.transport.onclose = () => this.forget(downstream);
    this.serve(downstream);
    await server.connect(downstream.transport);
    const response = await downstream.transport.handleRequest(request);
    // Not an initialize: the transport refused it; nothing to keep.
    if (downstream.transport.sessionId === undefined) await server.close();
    return response;
  }

  private adopt(sessionId: string, downstream: Downstream): void {
    this.downstreams.set(sessionId, downstream);
    this.unlisten ??= this.session.events.listen((event) => this.onSessionEvent(event));
    downstream.server.oninitialized = () => {
      downstream.unregister = this.session.downstream.register(this.downstreamClient(downstream));
    };
    if (this.downstreams.size > MAX_DOWNSTREAM_SESSIONS) {
      const oldest = [...this.downstreams.values()].filter((d) => d !== downstream).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      void oldest?.transport.close();
    }
  }

  private forget(downstream: Downstream): void {
    downstream.unregister?.();
    downstream.unregister = undefined;
    for (const key of downstream.subscriptions) void this.release(key).catch(() => undefined);
    downstream.subscriptions.clear();
    const id = downstream.transport.sessionId;
    if (id !== undefined && this.downstreams.get(id) === downstream) this.downstreams.delete(id);
    if (this.downstreams.size === 0) {
      this.unlisten?.();
      this.unlisten = undefined;
    }
  }

  private closeAll(): void {
    for (const downstream of [...this.downstreams.values()]) void downstream.transport.close();
  }

  /** The downstream as the session sees it: upstream requests go out on the stream of its newest request in flight. */
  private downstreamClient(downstream: Downstream): DownstreamClient {
    const server = downstream.server;
    return {
      get capabilities() {
        return server.getClientCapabilities() ?? {};
      },
      get busy() {
        return downstream.inflight.length > 0;
      },
      request: async (request, resultSchema, options = {}) => {
        const related = downstream.inflight.at(-1)?.id;
        if (related === undefined && !(await settlesWithin(downstream.standalone, STANDALONE_STREAM_WAIT_MS))) {
          throw new McpError(ErrorCode.ConnectionClosed, "the downstream MCP client has no open stream for server requests");
        }
        return server.request(request, resultSchema, {
          timeout: DOWNSTREAM_REQUEST_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onprogress ? { onprogress: options.onprogress } : {}),
          ...(related !== undefined ? { relatedRequestId: related } : {}),
        });
      },
    };
  }

  /** Catalog and server changes become list_changed notifications; server logs are relayed (at the client's level). */
  private onSessionEvent(event: SessionEvent): void {
    if (event.type === "tools.changed" || event.type === "server.status") {
      void this.announceToolChanges();
      if (event.type === "server.status") {
        for (const d of this.initialized()) {
          void d.server.sendPromptListChanged().catch(() => undefined);
          void d.server.sendResourceListChanged().catch(() => undefined);
        }
      }
      return;
    }
    if (event.type === "resource.updated") {
      const uri = String(event.data.uri);
      const key = subscriptionKey(String(event.data.server), uri);
      for (const d of this.initialized()) if (d.subscriptions.has(key)) void d.server.sendResourceUpdated({ uri }).catch(() => undefined);
      return;
    }
    if (event.type === "log") {
      const level = LoggingLevelSchema.safeParse(event.data.level);
      if (!level.success) return;
      const server = String(event.data.server);
      const logger = typeof event.data.logger === "string" ? `${server}/${event.data.logger}` : server;
      const params = { level: level.data, logger, data: event.data.data };
      for (const d of this.initialized()) {
        if (d.logLevel !== undefined && LOG_LEVELS.indexOf(level.data) < LOG_LEVELS.indexOf(d.logLevel)) continue;
        // During a call to that server, the log travels with the call (its POST stream).
        const related = d.inflight.findLast((c) => c.server === server)?.id;
        void d.server.notification({ method: "notifications/message", params }, related !== undefined ? { relatedRequestId: related } : undefined).catch(() => undefined);
      }
    }
  }

  private async announceToolChanges(): Promise<void> {
    const fingerprint = (await this.session.tools().catch(() => undefined))?.fingerprint;
    for (const d of this.initialized()) {
      if (d.listedFingerprint === undefined || d.listedFingerprint === fingerprint) continue;
      d.listedFingerprint = undefined;
      await d.server.sendToolListChanged().catch(() => undefined);
    }
  }

  private initialized(): Downstream[] {
    return [...this.downstreams.values()].filter((d) => d.server.getClientCapabilities() !== undefined);
  }

  /** The MCP methods of one downstream session. */
  private serve(downstream: Downstream): void {
    const { server, listing } = downstream;
    const session = this.session;

    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const turn = requestedTurn(request.params?._meta);
      const [listed, catalog] = await Promise.all([
        session.discovery.listTools({
          mode: listing.mode ?? "auto",
          ...(listing.contextWindow !== undefined ? { contextWindow: listing.contextWindow } : {}),
          ...(turn ? { turn: turn.id } : {}),
        }),
        session.tools(),
      ]);
      downstream.listedFingerprint = catalog.fingerprint;
      return { tools: listed.tools.map(toMcpTool) };
    });

    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args = {}, _meta } = request.params;
      const turn = requestedTurn(_meta);
      const progressToken = _meta?.progressToken;
      let raw: CallToolResult | undefined;
      const target = (await session.tools().catch(() => undefined))?.targets.get(name);
      const call = { id: extra.requestId, ...(target?.kind === "server" ? { server: target.server } : {}) };
      downstream.inflight.push(call);
      try {
        const normalized = await session.callTool(name, args, {
          signal: extra.signal,
          onResult: (result) => {
            raw = result;
          },
          ...(progressToken !== undefined
            ? {
                onProgress: (progress) => {
                  void extra.sendNotification({ method: "notifications/progress", params: { ...progress, progressToken } }).catch(() => undefined);
                },
              }
            : {}),
          ...(turn ? { turn: turn.id, ...(turn.actorId !== undefined ? { actorId: turn.actorId } : {}) } : {}),
        });
        return raw ?? normalizedToContent(normalized);
      } catch (error) {
        return toolFailure(error);
      } finally {
        downstream.inflight.splice(downstream.inflight.indexOf(call), 1);
      }
    });

    server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({
      resources: presentListed(await wire(session.resources(undefined, extra.signal))),
    }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_request, extra) => ({
      resourceTemplates: presentListed(await wire(session.resourceTemplates(undefined, extra.signal))),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const { uri, _meta } = request.params;
      const owner = requestedServer(_meta) ?? (await this.resourceOwner(uri, extra.signal));
      if (!owner) {
        throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: no server offers ${uri}; name one in _meta["${SERVER_META_KEY}"]`, { uri });
      }
      return wire(session.readResource(owner, uri, extra.signal));
    });

    server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const { uri, _meta } = request.params;
      const owner = requestedServer(_meta) ?? (await this.resourceOwner(uri, extra.signal));
      if (!owner) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: no server offers ${uri}`, { uri });
      const key = subscriptionKey(owner, uri);
      if (downstream.subscriptions.has(key)) return {};
      const holders = this.subscribers.get(key) ?? 0;
      if (holders === 0) await wire(session.subscribeResource(owner, uri, extra.signal));
      this.subscribers.set(key, (this.subscribers.get(key) ?? 0) + 1);
      downstream.subscriptions.add(key);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
      const { uri, _meta } = request.params;
      const owner = requestedServer(_meta) ?? [...downstream.subscriptions].map((k) => JSON.parse(k) as [string, string]).find(([, u]) => u === uri)?.[0];
      if (!owner) return {};
      const key = subscriptionKey(owner, uri);
      if (!downstream.subscriptions.delete(key)) return {};
      await wire(this.release(key, extra.signal));
      return {};
    });

    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const { ref } = request.params;
      if (ref.type === "ref/prompt") {
        const found = (await this.namedPrompts(extra.signal)).find((p) => p.name === ref.name);
        if (!found) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
        return wire(session.complete(found.entry.server, { ...request.params, ref: { ...ref, name: found.entry.name } }, extra.signal));
      }
      const owner = requestedServer(request.params._meta) ?? (await this.resourceOwner(ref.uri, extra.signal));
      if (!owner) throw new McpError(ErrorCode.InvalidParams, `No server offers the resource ${ref.uri}`);
      return wire(session.complete(owner, request.params, extra.signal));
    });

    server.setRequestHandler(ListPromptsRequestSchema, async (_request, extra) => {
      const named = await this.namedPrompts(extra.signal);
      return {
        prompts: named.map(({ name, entry: { server: owner, prefix: _prefix, ...prompt } }) => ({
          ...prompt,
          name,
          _meta: { ...(prompt._meta ?? {}), [SERVER_META_KEY]: owner, [PROMPT_META_KEY]: prompt.name },
        })),
      };
    });
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const found = (await this.namedPrompts(extra.signal)).find((p) => p.name === request.params.name);
      if (!found) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
      return wire(session.getPrompt(found.entry.server, found.entry.name, request.params.arguments, extra.signal));
    });

    // Levels are kept per downstream client; upstream servers log at their own level and we filter.
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      downstream.logLevel = request.params.level;
      return {};
    });

    // The downstream's workspace changed: servers that asked for roots should ask again.
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => session.rootsChanged());
  }

  /** Drops one holder of an upstream subscription; the last one unsubscribes upstream. */
  private async release(key: string, signal?: AbortSignal): Promise<void> {
    const holders = (this.subscribers.get(key) ?? 1) - 1;
    if (holders > 0) {
      this.subscribers.set(key, holders);
      return;
    }
    this.subscribers.delete(key);
    const [server, uri] = JSON.parse(key) as [string, string];
    await this.session.unsubscribeResource(server, uri, signal);
  }

  private async namedPrompts(signal: AbortSignal) {
    const prompts = await wire(this.session.prompts(signal));
    return namePrompts(prompts.map((p) => ({ ...p, prefix: this.session.namesPrefixed(p.server) })));
  }

  private async resourceOwner(uri: string, signal: AbortSignal): Promise<string | undefined> {
    const [resources, templates] = await Promise.all([wire(this.session.resources(undefined, signal)), wire(this.session.resourceTemplates(undefined, signal))]);
    const servers = [...new Set([...resources, ...templates].map((r) => r.server))].sort();
    return resourceOwner(uri, { resources, templates, servers }, matchesTemplate);
  }
}

/** RFC 6570 matching with the SDK's parser; a template it refuses matches nothing. */
function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

function toMcpTool(tool: ApiTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    ...(tool.outputSchema && refsResolve(tool.outputSchema) ? { outputSchema: tool.outputSchema as Tool["outputSchema"] } : {}),
    _meta: { [SERVER_META_KEY]: tool.server, "io.mcp-edge/tool": tool.tool },
  };
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer ?? null));
}

/** Answering before reading a request body makes workerd complain when the body arrives; read it off first. */
async function discardBody(request: Request): Promise<void> {
  if (request.body && !request.bodyUsed) await request.arrayBuffer().catch(() => undefined);
}
