/**
 * Server configuration: the opencode-compatible `ServerConfig` shape, validated with
 * zod at the edge (unknown keys are rejected and named), and the deep merge of a
 * session's entries over the deployment's. Pure: no Workers or Node APIs.
 */
import { z } from "zod";
import { McpEdgeError } from "./errors.js";
import { PermissionConfigSchema } from "./permissions.js";
import { ProvidersSchema } from "./sampling/providers.js";
import { validationError } from "./validation.js";

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Absolute cap for one request even while progress keeps resetting its timeout. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 10 * 60_000;

const timeoutSchema = z.union([
  z.number().int().positive(),
  z.strictObject({
    startup: z.number().int().positive().optional(),
    request: z.number().int().positive().optional(),
  }),
]);

const oauthSchema = z.union([
  z.literal(false),
  z.strictObject({
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    scope: z.string().min(1).optional(),
    /** The client ID metadata document's URL to use as client_id (https); default: mcp-edge's own. */
    clientMetadataUrl: z.string().url().optional(),
    tokenEndpointAuthMethod: z.enum(["client_secret_basic", "client_secret_post", "none"]).optional(),
  }),
]);

export type OAuthConfig = Exclude<z.infer<typeof oauthSchema>, false>;

const samplingSchema = z.enum(["deny", "ask", "allow"]);

/** Per-server sampling limits: concurrent samplings and model tokens per rolling hour. */
const samplingLimitsSchema = z.strictObject({
  concurrent: z.number().int().positive().optional(),
  tokensPerHour: z.number().int().positive().optional(),
});

const commonFields = {
  timeout: timeoutSchema.optional(),
  enabled: z.boolean().optional(),
  sampling: samplingSchema.optional(),
  samplingLimits: samplingLimitsSchema.optional(),
  /** false: this server's tools and prompts keep their own names (no `NAME_` prefix). */
  prefix: z.boolean().optional(),
};

export const RemoteServerConfigSchema = z.strictObject({
  type: z.literal("remote"),
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).optional(),
  oauth: oauthSchema.optional(),
  ...commonFields,
});

/** Reserved for the bridge (stdio servers on a developer's machine). */
export const LocalServerConfigSchema = z.strictObject({
  type: z.literal("local"),
  bridge: z.string().min(1).optional(),
  server: z.string().min(1).optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...commonFields,
});

/** An entry without `type`: switches (or tunes) a server the deployment defines. */
export const ServerOverrideSchema = z.strictObject({
  type: z.undefined().optional(),
  url: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  oauth: oauthSchema.optional(),
  ...commonFields,
});

export const ServerConfigSchema = z.union([RemoteServerConfigSchema, LocalServerConfigSchema, ServerOverrideSchema]);

export type RemoteServerConfig = z.infer<typeof RemoteServerConfigSchema>;
export type LocalServerConfig = z.infer<typeof LocalServerConfigSchema>;
export type ServerConfigInput = z.infer<typeof ServerConfigSchema>;
export type ResolvedServerConfig = RemoteServerConfig | LocalServerConfig;

/** 1-128 characters, no '/' or control characters, and not `__proto__` (an assignment to it would replace an object's prototype). */
export const SERVER_NAME_PATTERN = /^(?!__proto__$)[^\u0000-\u001f/]{1,128}$/;
const SERVER_NAME_RULE = "server names are 1-128 characters without '/' or control characters, and not __proto__";

export const SessionBodySchema = z.strictObject({
  servers: z.record(z.string().regex(SERVER_NAME_PATTERN, SERVER_NAME_RULE), z.unknown()).optional(),
  roots: z.array(z.string().url()).max(64).optional(),
  /** The session's own model providers for sampling, over the deployment's (same ids replace). */
  providers: ProvidersSchema.optional(),
  /** The default model for sampling, "provider/model". */
  model: z.string().regex(/^[^/]+\/.+$/, 'model is "provider/model"').optional(),
  /** Permission rules: tool-name patterns, plus `mcp_sampling` / `mcp_elicitation` rules over server names. */
  permission: PermissionConfigSchema.optional(),
  /** Pending approvals are rejected after this long (ms); absent: they wait. */
  approvalTimeoutMs: z.number().int().positive().max(24 * 3_600_000).optional(),
});

export type SessionBody = z.infer<typeof SessionBodySchema>;

/**
 * Parses one server entry. A failure names every offending key (zod's
 * unrecognized-key issue for unknown keys), so the API can answer 400 with it.
 */
export function parseServerConfig(name: string, input: unknown): ServerConfigInput {
  if (!SERVER_NAME_PATTERN.test(name)) throw new McpEdgeError("invalidConfig", SERVER_NAME_RULE, { path: ["name"] });
  const typed = typeof input === "object" && input !== null ? (input as { type?: unknown }).type : undefined;
  // Pick the branch by `type`, so the error names this branch's problems, not the union's.
  const schema =
    typed === "remote" ? RemoteServerConfigSchema : typed === "local" ? LocalServerConfigSchema : typed === undefined ? ServerOverrideSchema : undefined;
  if (!schema) {
    throw new McpEdgeError("invalidConfig", `server "${name}": type must be "remote" or "local"`, { server: name, path: ["type"] });
  }
  const result = schema.safeParse(input);
  if (!result.success) throw configError(name, result.error);
  return result.data;
}

export function configError(name: string, error: z.ZodError): McpEdgeError {
  return validationError(error, { what: `server "${name}"`, code: "invalidConfig", data: { server: name } });
}

/** Outcome of merging: a usable config, or a reason the server cannot run. */
export type MergedServer = { ok: true; config: ResolvedServerConfig } | { ok: false; error: string; enabled: boolean };

/**
 * Deep-merges a session entry over the deployment's entry of the same name.
 * Still no `type` after the merge → that server alone fails with a clear error.
 */
export function mergeServerConfig(name: string, base: ServerConfigInput | undefined, override: ServerConfigInput | undefined): MergedServer {
  const merged = deepMerge(base ?? {}, override ?? {}) as Record<string, unknown>;
  const enabled = merged.enabled !== false;
  if (merged.type === undefined) {
    return { ok: false, enabled, error: `server "${name}" has no "type" (and the deployment config defines no server of that name)` };
  }
  const schema = merged.type === "remote" ? RemoteServerConfigSchema : LocalServerConfigSchema;
  const result = schema.safeParse(merged);
  if (!result.success) return { ok: false, enabled, error: configError(name, result.error).message };
  return { ok: true, config: result.data };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Own keys only, written as data properties: a `__proto__` key (JSON.parse makes it an own
 * property) stays plain data that the schemas then reject, never the merged object's prototype.
 */
export function deepMerge(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override === undefined ? base : override;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    const merged = Object.hasOwn(base, key) ? deepMerge(base[key], value) : value;
    Object.defineProperty(out, key, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export interface Timeouts {
  startup: number;
  request: number;
  maxTotal: number;
}

/** Server's own timeout, then the deployment default, then the named defaults. */
export function resolveTimeouts(config: { timeout?: ServerConfigInput["timeout"] }, deploymentRequestTimeout?: number): Timeouts {
  const t = config.timeout;
  const startup = typeof t === "number" ? t : (t?.startup ?? DEFAULT_STARTUP_TIMEOUT_MS);
  const request = typeof t === "number" ? t : (t?.request ?? deploymentRequestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS);
  return { startup, request, maxTotal: Math.max(request, DEFAULT_MAX_TOTAL_TIMEOUT_MS) };
}

/** Parses the deployment's `MCP_SERVERS` JSON (a map of NAME → ServerConfig). */
export function parseDeploymentServers(json: string | undefined): Record<string, ServerConfigInput> {
  if (!json || json.trim() === "") return {};
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new McpEdgeError("invalidConfig", "MCP_SERVERS is not valid JSON");
  }
  if (!isPlainObject(raw)) throw new McpEdgeError("invalidConfig", "MCP_SERVERS must be a JSON object");
  const out: Record<string, ServerConfigInput> = {};
  for (const [name, value] of Object.entries(raw)) out[name] = parseServerConfig(name, value);
  return out;
}
