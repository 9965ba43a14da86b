/**
 * What a session persists, and nothing more: its id, owner (principal), roots and, per server, the
 * session's own config entry, last state and what a resume needs (upstream session id,
 * protocol version, capabilities, instructions) plus the catalog's identity and
 * fingerprint. Handlers and clients are memory-only and rebuilt after eviction.
 * Reads are validated, so a record from an older version fails loudly, not oddly.
 */
import { z } from "zod";

const ResumeSchema = z.object({
  transport: z.enum(["streamable-http", "sse"]),
  sessionId: z.string().optional(),
  protocolVersion: z.string().optional(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  instructions: z.string().optional(),
});

export const PersistedServerSchema = z.object({
  /** The session's own entry (before the deployment merge), as the client sent it. */
  input: z.unknown(),
  state: z.string(),
  error: z.string().optional(),
  resume: ResumeSchema.optional(),
  identity: z.string().optional(),
  fingerprint: z.string().optional(),
  tools: z.number().optional(),
});

const TurnSchema = z.object({
  id: z.string(),
  mode: z.enum(["full", "search"]),
  fingerprint: z.string(),
  loaded: z.array(z.string()),
  pendingDisable: z.array(z.string()),
});

export const PersistedSessionSchema = z.object({
  id: z.string(),
  /** Who the session belongs to; records from before principals existed were all `local`'s. */
  principal: z.string().default("local"),
  createdAt: z.number(),
  roots: z.array(z.string()),
  servers: z.record(z.string(), PersistedServerSchema),
  /** The current turn of progressive discovery (loaded tools), if any. */
  turn: TurnSchema.optional(),
  /** The session's own model providers (validated at creation; API keys never leave storage). */
  providers: z.record(z.string(), z.unknown()).optional(),
  /** The default model, "provider/model". */
  model: z.string().optional(),
  /** The permission ruleset (tools, mcp_sampling, mcp_elicitation). */
  permission: z.record(z.string(), z.unknown()).optional(),
  approvalTimeoutMs: z.number().optional(),
  /** What `always` granted: "sampling:SERVER", "tool:NAME". */
  grants: z.array(z.string()).optional(),
  /** Servers whose tools this session has called (sampling approvals need one). */
  called: z.array(z.string()).optional(),
  /** The model most recently used for sampling. */
  recentModel: z.string().optional(),
});

export type PersistedServer = z.infer<typeof PersistedServerSchema>;
export type PersistedSession = z.infer<typeof PersistedSessionSchema>;

export const SESSION_KEY = "session";

export async function loadSession(storage: DurableObjectStorage): Promise<PersistedSession | undefined> {
  const raw = await storage.get(SESSION_KEY);
  if (raw === undefined) return undefined;
  return PersistedSessionSchema.parse(raw);
}

export async function saveSession(storage: DurableObjectStorage, session: PersistedSession): Promise<void> {
  await storage.put(SESSION_KEY, session);
}

export async function deleteSession(storage: DurableObjectStorage): Promise<void> {
  await storage.delete(SESSION_KEY);
}
