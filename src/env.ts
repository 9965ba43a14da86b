/**
 * The Worker's bindings and deployment settings, read once per isolate.
 */
import type { BridgeHub } from "../durable-objects/bridge-hub.js";
import type { SessionObject } from "../durable-objects/session-object.js";
import { parseDeploymentServers, type ServerConfigInput } from "./core/config.js";
import { DEFAULT_LIMITS, MAX_TIMEOUT_MS, positiveInt, type CodeModeLimits } from "./core/codemode/limits.js";
import { DEFAULT_SEARCH_THRESHOLD } from "./core/discovery/mode.js";

export interface Env {
  SESSIONS: DurableObjectNamespace<SessionObject>;
  /** One BridgeHub per principal: the WebSockets of that principal's bridges. */
  BRIDGES: DurableObjectNamespace<BridgeHub>;
  /** Bridge credentials: comma-separated `principal:token` pairs (a secret in a deployment). */
  BRIDGE_TOKENS?: string;
  CATALOG: KVNamespace;
  /** "true" lets sessions dial loopback and private addresses (local dev, tests). */
  ALLOW_PRIVATE_URLS?: string;
  /** JSON map NAME → ServerConfig that every session inherits. */
  MCP_SERVERS?: string;
  /** Default request timeout (ms) for servers that set none. */
  REQUEST_TIMEOUT_MS?: string;
  /** Share of the context window above which `mode=auto` switches to search (default 0.05). */
  SEARCH_THRESHOLD?: string;
  /** Code mode: a dynamic isolate per script (Worker Loader); without it, QuickJS. */
  LOADER?: WorkerLoader;
  /** Code mode's sandbox: "auto" (the loader when bound, else QuickJS), "loader" or "quickjs". */
  CODE_SANDBOX?: string;
  /** Code mode limits: default wall time (ms), tool calls per run, output bytes, QuickJS memory bytes. */
  CODE_MODE_TIMEOUT_MS?: string;
  CODE_MODE_MAX_CALLS?: string;
  CODE_MODE_MAX_OUTPUT_BYTES?: string;
  CODE_MODE_MEMORY_BYTES?: string;
}

/** The principal of every session until the API authenticates its callers (the OAuth issue). */
export const LOCAL_PRINCIPAL = "local";

/** Which principal a bridge token belongs to, if any. Tokens are compared in constant time. */
export function bridgePrincipal(env: Env, token: string | undefined): string | undefined {
  if (!token) return undefined;
  let found: string | undefined;
  for (const pair of (env.BRIDGE_TOKENS ?? "").split(",")) {
    const at = pair.indexOf(":");
    if (at <= 0) continue;
    const principal = pair.slice(0, at).trim();
    const expected = pair.slice(at + 1).trim();
    if (expected && timingSafeEqual(expected, token)) found = principal;
  }
  return found;
}

function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

export interface DeploymentSettings {
  allowPrivateUrls: boolean;
  servers: Record<string, ServerConfigInput>;
  requestTimeoutMs: number | undefined;
  searchThreshold: number;
}

export function readSettings(env: Env): DeploymentSettings {
  const timeout = Number(env.REQUEST_TIMEOUT_MS);
  const threshold = Number(env.SEARCH_THRESHOLD);
  return {
    allowPrivateUrls: env.ALLOW_PRIVATE_URLS === "true",
    servers: parseDeploymentServers(env.MCP_SERVERS),
    requestTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
    searchThreshold: Number.isFinite(threshold) && threshold > 0 && threshold <= 1 ? threshold : DEFAULT_SEARCH_THRESHOLD,
  };
}

export interface CodeModeSettings {
  sandbox: "auto" | "loader" | "quickjs";
  limits: CodeModeLimits;
}

export function readCodeModeSettings(env: Env): CodeModeSettings {
  const sandbox = env.CODE_SANDBOX === "loader" || env.CODE_SANDBOX === "quickjs" ? env.CODE_SANDBOX : "auto";
  return {
    sandbox,
    limits: {
      ...DEFAULT_LIMITS,
      timeoutMs: Math.min(positiveInt(env.CODE_MODE_TIMEOUT_MS, DEFAULT_LIMITS.timeoutMs), MAX_TIMEOUT_MS),
      maxCalls: positiveInt(env.CODE_MODE_MAX_CALLS, DEFAULT_LIMITS.maxCalls),
      maxOutputBytes: positiveInt(env.CODE_MODE_MAX_OUTPUT_BYTES, DEFAULT_LIMITS.maxOutputBytes),
      memoryBytes: positiveInt(env.CODE_MODE_MEMORY_BYTES, DEFAULT_LIMITS.memoryBytes),
    },
  };
}
