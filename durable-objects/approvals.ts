/**
 * A session's approval queue: requests that wait for a person (a server's sampling or
 * elicitation request, a tool call held by an `ask` rule). Records live in Durable
 * Object storage, so the queue survives eviction; the promise a handler awaits lives in
 * memory. A reply to a record whose waiter is gone (the object was evicted since) goes
 * to the `orphan` handler, which answers the upstream request from the record.
 */
import { z } from "zod";
import type { ApprovalReplyBody } from "../src/api/schemas.js";
import { McpEdgeError } from "../src/core/errors.js";

export const APPROVAL_KINDS = ["sampling", "tool", "elicitation"] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** The upstream request an approval answers, kept so a reply after eviction can still answer it. */
export const PendingRequestSchema = z.object({
  method: z.string(),
  /** The JSON-RPC id the upstream server is waiting on. */
  jsonrpcId: z.union([z.string(), z.number()]),
  params: z.unknown(),
});

export const ApprovalRecordSchema = z.object({
  id: z.string(),
  kind: z.enum(APPROVAL_KINDS),
  server: z.string(),
  createdAt: z.string(),
  /** What a person needs to decide (never secrets, never more than a preview of content). */
  metadata: z.record(z.string(), z.unknown()),
  /** Epoch ms after which the approval is rejected on its own (absent: waits). */
  expiresAt: z.number().optional(),
  request: PendingRequestSchema.optional(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecordSchema>;

/** A person's answer (the API's schema). `always` remembers the grant for that server (or tool) in this session. */
export type ApprovalReply = z.output<typeof ApprovalReplyBody>;

/** How an approval ended without a person's answer. */
export type ApprovalOutcome = ApprovalReply | { reply: "timeout" } | { reply: "cancelled"; reason: string };

const KEY_PREFIX = "approval:";

export interface ApprovalQueueHooks {
  /** Checks (and may complete, e.g. defaults) a reply before it settles; throws a 400 to refuse it. */
  check?(record: ApprovalRecord, reply: ApprovalReply): ApprovalReply;
  requested(record: ApprovalRecord): void;
  resolved(record: ApprovalRecord, outcome: ApprovalOutcome): void;
  /** A reply (or a timeout) for a record nobody in this instance waits on. */
  orphan(record: ApprovalRecord, outcome: ApprovalOutcome): Promise<void>;
}

interface Waiter {
  resolve(outcome: ApprovalOutcome): void;
  timer?: ReturnType<typeof setTimeout>;
}

export class ApprovalQueue {
  private readonly waiters = new Map<string, Waiter>();
  /** Deadlines of records restored after eviction (no waiter: they time out into `orphan`). */
  private readonly orphanTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private restored: Promise<void> | undefined;
  private nextId = 0;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly hooks: ApprovalQueueHooks,
  ) {}

  /**
   * Queues an approval and waits for its outcome. An abort (the upstream request was
   * cancelled, the server or session closed) removes it and resolves `cancelled`.
   */
  async request(
    input: Omit<ApprovalRecord, "id" | "createdAt" | "expiresAt">,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<ApprovalOutcome> {
    const id = `apr_${Date.now().toString(36)}${(++this.nextId).toString(36)}${randomSuffix()}`;
    const now = Date.now();
    const record: ApprovalRecord = {
      ...input,
      id,
      createdAt: new Date(now).toISOString(),
      ...(options.timeoutMs && options.timeoutMs > 0 ? { expiresAt: now + options.timeoutMs } : {}),
    };
    if (options.signal?.aborted) return { reply: "cancelled", reason: "cancelled before it was queued" };
    await this.storage.put(KEY_PREFIX + id, record);
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      const waiter: Waiter = { resolve };
      if (record.expiresAt !== undefined) waiter.timer = setTimeout(() => void this.settle(record, { reply: "timeout" }), record.expiresAt - now);
      this.waiters.set(id, waiter);
      options.signal?.addEventListener("abort", () => void this.settle(record, { reply: "cancelled", reason: "the request was cancelled" }), { once: true });
    });
    this.hooks.requested(record);
    return outcome;
  }

  async list(): Promise<ApprovalRecord[]> {
    await this.restore();
    const entries = await this.storage.list<unknown>({ prefix: KEY_PREFIX });
    const out: ApprovalRecord[] = [];
    for (const value of entries.values()) {
      const parsed = ApprovalRecordSchema.safeParse(value);
      if (parsed.success) out.push(parsed.data);
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const parsed = ApprovalRecordSchema.safeParse(await this.storage.get(KEY_PREFIX + id));
    return parsed.success ? parsed.data : undefined;
  }

  /** A person's answer. Checks the reply fits the approval's kind; 404 for an unknown id. */
  async reply(id: string, reply: ApprovalReply): Promise<ApprovalRecord> {
    await this.restore();
    const record = await this.get(id);
    if (!record) throw new McpEdgeError("notFound", `no pending approval "${id}"`, { id });
    const elicitation = record.kind === "elicitation";
    const fits = elicitation ? ["accept", "decline", "cancel"].includes(reply.reply) : ["once", "always", "reject"].includes(reply.reply);
    if (!fits) {
      const allowed = elicitation ? '"accept" (with content), "decline" or "cancel"' : '"once", "always" or "reject"';
      throw new McpEdgeError("badRequest", `a ${record.kind} approval takes reply ${allowed}`, { id, kind: record.kind });
    }
    await this.settle(record, this.hooks.check ? this.hooks.check(record, reply) : reply);
    return record;
  }

  /** Ends every approval of a server (or all): their requests are being cancelled. */
  async cancelAll(reason: string, server?: string): Promise<void> {
    const records = await this.list();
    await Promise.all(records.filter((r) => server === undefined || r.server === server).map((r) => this.settle(r, { reply: "cancelled", reason })));
  }

  /**
   * After eviction: records still in storage get their deadline back, so a configured
   * timeout still rejects them. Idempotent.
   */
  restore(): Promise<void> {
    this.restored ??= (async () => {
      const entries = await this.storage.list<unknown>({ prefix: KEY_PREFIX });
      for (const value of entries.values()) {
        const parsed = ApprovalRecordSchema.safeParse(value);
        if (!parsed.success || parsed.data.expiresAt === undefined || this.waiters.has(parsed.data.id)) continue;
        const record = parsed.data;
        this.orphanTimers.set(record.id, setTimeout(() => void this.settle(record, { reply: "timeout" }), Math.max(0, record.expiresAt! - Date.now())));
      }
    })();
    return this.restored;
  }

  private async settle(record: ApprovalRecord, outcome: ApprovalOutcome): Promise<void> {
    const waiter = this.waiters.get(record.id);
    this.waiters.delete(record.id);
    if (waiter?.timer) clearTimeout(waiter.timer);
    const orphanTimer = this.orphanTimers.get(record.id);
    if (orphanTimer) clearTimeout(orphanTimer);
    this.orphanTimers.delete(record.id);
    // Delete first: a second reply racing this one finds nothing and gets a 404.
    const existed = (await this.storage.delete(KEY_PREFIX + record.id)) || waiter !== undefined;
    if (!existed) return;
    this.hooks.resolved(record, outcome);
    if (waiter) waiter.resolve(outcome);
    else await this.hooks.orphan(record, outcome);
  }
}

function randomSuffix(): string {
  return [...crypto.getRandomValues(new Uint8Array(4))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
