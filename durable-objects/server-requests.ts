/**
 * A session's answers to its servers' requests: `sampling/createMessage` (policy gates,
 * approval, model choice, the model run with stall detection and heartbeats, limits and
 * usage) and `elicitation/create` (a form or URL the person answers). The rules are the
 * pure ones in `src/core/sampling/`, `permissions.ts` and `elicitation.ts`; this file
 * wires them to the approval queue, the event stream and the connections.
 */
import { CreateMessageResultSchema, ElicitResultSchema, McpError, type CreateMessageRequest, type CreateMessageResult, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { validateElicitationContent } from "../src/core/elicitation.js";
import { McpEdgeError, messageOf } from "../src/core/errors.js";
import { matchRule, samplingDecision, type PermissionAction, type PermissionConfig } from "../src/core/permissions.js";
import { samplingApprovalMetadata } from "../src/core/sampling/approval.js";
import { refused, SamplingError } from "../src/core/sampling/errors.js";
import { createLanguageModel } from "../src/core/sampling/provider-factory.js";
import type { Providers } from "../src/core/sampling/providers.js";
import { SamplingRateLimiter } from "../src/core/sampling/rate-limit.js";
import { validateSamplingRequest, type ValidatedSampling } from "../src/core/sampling/request.js";
import { runSampling } from "../src/core/sampling/run.js";
import { selectModel } from "../src/core/sampling/select.js";
import type { ApprovalOutcome, ApprovalQueue, ApprovalRecord, ApprovalReply } from "./approvals.js";
import type { DownstreamCapability, DownstreamClient } from "./downstream.js";
import type { SessionEvents } from "./session-events.js";
import type { ServerRequestContext, UpstreamConnection } from "./upstream-connection.js";

/** Heartbeat cadence for samplings that carry a progress token. */
export const DEFAULT_SAMPLING_HEARTBEAT_MS = 15_000;

export interface ServerLimits {
  concurrent?: number;
  tokensPerHour?: number;
}

/** What the session gives the handlers: its settings and its shared parts. */
export interface ServerRequestHost {
  providers(): Providers;
  /** The session's default model ("provider/model"), if it set one. */
  defaultModel(): string | undefined;
  recentModel(): string | undefined;
  setRecentModel(id: string): void;
  permission(): PermissionConfig | undefined;
  serverPolicy(server: string): PermissionAction | undefined;
  serverLimits(server: string): ServerLimits | undefined;
  /** Whether the session has called a tool of this server (no approval is ever asked for a server it never used). */
  hasCalled(server: string): boolean;
  isRemembered(grant: string): boolean;
  remember(grant: string): Promise<void>;
  approvalTimeoutMs(): number | undefined;
  heartbeatMs(): number;
  connection(server: string): UpstreamConnection | undefined;
  /** An MCP client on the aggregated endpoint that declared the capability (it answers instead of the session). */
  downstreamFor(capability: DownstreamCapability): DownstreamClient | undefined;
  approvals: ApprovalQueue;
  events: SessionEvents;
}

export interface SamplingUsage {
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

/** The grant `always` stores for a server's samplings. */
export const samplingGrant = (server: string) => `sampling:${server}`;

export class ServerRequests {
  /** In-flight samplings and elicitations per server, aborted when it closes. */
  private readonly inflight = new Map<string, Set<AbortController>>();
  private readonly limiters = new Map<string, SamplingRateLimiter>();

  constructor(private readonly host: ServerRequestHost) {}

  // ── Sampling ─────────────────────────────────────────────────────────────

  async sampling(connection: UpstreamConnection, params: CreateMessageRequest["params"], context: ServerRequestContext): Promise<CreateMessageResult> {
    const server = connection.name;
    return this.tracked(server, context.signal, async (signal) => {
      try {
        const request = validateSamplingRequest(params);
        const decision = samplingDecision(this.host.serverPolicy(server), this.host.permission()?.mcp_sampling, server);
        if (decision === "deny") throw refused("policy", `sampling is denied for server "${server}" by policy`);
        // A downstream MCP client that can sample (the session used as one MCP server) answers itself.
        const downstream = this.host.downstreamFor("sampling");
        if (downstream) return await downstream.request({ method: "sampling/createMessage", params }, CreateMessageResultSchema, { signal });
        const chosen = selectModel({
          providers: this.host.providers(),
          request,
          ...optional("defaultModel", this.host.defaultModel()),
          ...optional("recentlyUsed", this.host.recentModel()),
        });
        if (decision === "ask" && !this.host.isRemembered(samplingGrant(server))) {
          if (!this.host.hasCalled(server)) throw refused("no_session", `server "${server}" asked for sampling, but this session has not used it`);
          const outcome = await this.host.approvals.request(
            { kind: "sampling", server, metadata: { ...samplingApprovalMetadata(request, chosen.id) }, request: { method: "sampling/createMessage", jsonrpcId: context.requestId, params } },
            { signal, ...optional("timeoutMs", this.host.approvalTimeoutMs()) },
          );
          await this.applyOutcome(server, outcome);
        }
        return await this.run(server, request, params, context, signal);
      } catch (error) {
        throw toWireError(error);
      }
    });
  }

  /** Turns a person's answer into go (returns) or a refusal (throws). */
  private async applyOutcome(server: string, outcome: ApprovalOutcome): Promise<void> {
    switch (outcome.reply) {
      case "once":
        return;
      case "always":
        await this.host.remember(samplingGrant(server));
        return;
      case "timeout":
        throw refused("timeout", "the approval timed out");
      case "cancelled":
        throw refused("cancelled", outcome.reason);
      default:
        throw refused("rejected", "the user rejected the sampling request");
    }
  }

  private async run(server: string, request: ValidatedSampling, params: CreateMessageRequest["params"], context: ServerRequestContext, signal: AbortSignal): Promise<CreateMessageResult> {
    const limiter = this.limiter(server);
    const acquired = limiter.tryAcquire();
    if (typeof acquired !== "function") throw refused("rate_limited", acquired.message);
    try {
      // Chosen again: an approval may have waited while the session's models changed.
      const chosen = selectModel({
        providers: this.host.providers(),
        request,
        ...optional("defaultModel", this.host.defaultModel()),
        ...optional("recentlyUsed", this.host.recentModel()),
      });
      const model = createLanguageModel(chosen.providerId, chosen.provider, chosen.modelId);
      const progressToken = params._meta?.progressToken;
      const result = await runSampling({
        model,
        modelId: chosen.id,
        request,
        spec: chosen.spec,
        ...optional("chunkTimeoutMs", chosen.provider.chunkTimeout),
        heartbeatMs: this.host.heartbeatMs(),
        signal,
        ...(chosen.provider.apiKey ? { secrets: [chosen.provider.apiKey] } : {}),
        ...(progressToken !== undefined
          ? {
              onHeartbeat: ({ chunks, characters }: { chunks: number; characters: number }) => {
                this.host.events.emit("sampling.progress", { server, model: chosen.id, chunks, characters });
                void context.progress({ progressToken, progress: chunks, message: `${chunks} chunks, ${characters} characters` }).catch(() => undefined);
              },
            }
          : {}),
      });
      this.host.setRecentModel(chosen.id);
      limiter.record(result.usage);
      this.host.events.emit("sampling.finished", { server, model: chosen.id, stopReason: result.stopReason, ...result.usage });
      return { role: result.role, content: result.content, model: result.model, stopReason: result.stopReason };
    } finally {
      acquired();
    }
  }

  // ── Elicitation ──────────────────────────────────────────────────────────

  async elicitation(connection: UpstreamConnection, params: ElicitRequest["params"], context: ServerRequestContext): Promise<ElicitResult> {
    const server = connection.name;
    return this.tracked(server, context.signal, async (signal) => {
      const rule = matchRule(this.host.permission()?.mcp_elicitation ?? {}, server);
      if (rule === "deny") return { action: "decline" };
      const downstream = this.host.downstreamFor("elicitation");
      const urlMode = params.mode === "url";
      if (downstream && (!urlMode || downstream.capabilities.elicitation?.url !== undefined)) {
        return downstream.request({ method: "elicitation/create", params }, ElicitResultSchema, { signal });
      }
      const metadata =
        params.mode === "url"
          ? { mode: "url", message: params.message, url: params.url, elicitationId: params.elicitationId }
          : { mode: "form", message: params.message, requestedSchema: params.requestedSchema };
      const outcome = await this.host.approvals.request(
        { kind: "elicitation", server, metadata, request: { method: "elicitation/create", jsonrpcId: context.requestId, params } },
        { signal, ...optional("timeoutMs", this.host.approvalTimeoutMs()) },
      );
      return elicitResult(outcome);
    });
  }

  /** Validates an elicitation reply's content against the requested schema (defaults filled in) before it settles. */
  checkReply(record: ApprovalRecord, reply: ApprovalReply): ApprovalReply {
    if (record.kind !== "elicitation" || reply.reply !== "accept" || record.metadata.mode !== "form") return reply;
    const checked = validateElicitationContent(record.metadata.requestedSchema, reply.content ?? {});
    if (!checked.success) throw new McpEdgeError("badRequest", `content does not match the requested schema: ${checked.error}`, { id: record.id });
    return { reply: "accept", content: checked.value };
  }

  /**
   * A reply to an approval whose handler is gone (the object was evicted since): answer
   * the upstream request from the stored record over the resumed connection.
   */
  async answerOrphan(record: ApprovalRecord, outcome: ApprovalOutcome): Promise<void> {
    const pending = record.request;
    const connection = this.host.connection(record.server);
    if (!pending || !connection) return;
    let answer: { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };
    if (record.kind === "elicitation") {
      answer = { result: elicitResult(outcome) };
    } else {
      try {
        await this.applyOutcome(record.server, outcome);
        const params = pending.params as CreateMessageRequest["params"];
        const controller = new AbortController();
        const context: ServerRequestContext = {
          signal: controller.signal,
          requestId: pending.jsonrpcId,
          progress: async () => undefined,
        };
        const result = await this.tracked(record.server, undefined, (signal) => this.run(record.server, validateSamplingRequest(params), params, context, signal));
        answer = { result };
      } catch (error) {
        const wire = toWireError(error);
        answer = { error: { code: wire.code, message: wire.message, ...(wire.data !== undefined ? { data: wire.data } : {}) } };
      }
    }
    await connection.answerServerRequest(pending.jsonrpcId, answer).catch((error) => console.warn("answering an approval after eviction failed", messageOf(error)));
  }

  // ── Lifecycle and usage ──────────────────────────────────────────────────

  /** Aborts a server's in-flight requests and its pending approvals (it is closing). */
  async cancelServer(server: string, reason: string): Promise<void> {
    for (const controller of this.inflight.get(server) ?? []) controller.abort(reason);
    this.inflight.delete(server);
    await this.host.approvals.cancelAll(reason, server);
  }

  async cancelAll(reason: string): Promise<void> {
    for (const server of [...this.inflight.keys()]) await this.cancelServer(server, reason);
    await this.host.approvals.cancelAll(reason);
  }

  usage(): Record<string, SamplingUsage> {
    const out: Record<string, SamplingUsage> = {};
    for (const [server, limiter] of this.limiters) out[server] = limiter.usage();
    return out;
  }

  private limiter(server: string): SamplingRateLimiter {
    let limiter = this.limiters.get(server);
    if (!limiter) {
      const limits = this.host.serverLimits(server);
      limiter = new SamplingRateLimiter({
        ...optional("maxConcurrent", limits?.concurrent),
        ...optional("maxTokensPerHour", limits?.tokensPerHour),
      });
      this.limiters.set(server, limiter);
    }
    return limiter;
  }

  /** Runs `work` with a signal aborted by the upstream's cancellation or the server closing. */
  private async tracked<T>(server: string, upstream: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(upstream?.reason ?? "cancelled by the server");
    if (upstream?.aborted) onAbort();
    upstream?.addEventListener("abort", onAbort, { once: true });
    let set = this.inflight.get(server);
    if (!set) this.inflight.set(server, (set = new Set()));
    set.add(controller);
    try {
      return await work(controller.signal);
    } finally {
      upstream?.removeEventListener("abort", onAbort);
      set.delete(controller);
    }
  }
}

function elicitResult(outcome: ApprovalOutcome): ElicitResult {
  if (outcome.reply === "accept") return { action: "accept", ...(outcome.content ? { content: outcome.content as ElicitResult["content"] } : {}) };
  if (outcome.reply === "decline" || outcome.reply === "reject") return { action: "decline" };
  return { action: "cancel" };
}

/** Our errors as the JSON-RPC error the server sees. */
function toWireError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof SamplingError) {
    const data = error.reason !== undefined ? { reason: error.reason, ...(isRecord(error.data) ? error.data : {}) } : error.data;
    return new McpError(error.code, error.message, data);
  }
  return new McpError(-32603, `sampling failed: ${messageOf(error)}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{key: value}` when the value is defined, else `{}` (exactOptionalPropertyTypes). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
