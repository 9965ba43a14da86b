/**
 * The Worker's bindings and deployment settings, read once per isolate.
 */
import type { BridgeHub } from "../durable-objects/bridge-hub.js";
import type { CredentialVault } from "../durable-objects/credential-vault.js";
import type { SessionObject } from "../durable-objects/session-object.js";
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { parseDeploymentServers, type ServerConfigInput } from "./core/config.js";
import { DEFAULT_LIMITS, MAX_TIMEOUT_MS, positiveInt, type CodeModeLimits } from "./core/codemode/limits.js";
import { DEFAULT_SEARCH_THRESHOLD } from "./core/discovery/mode.js";
import { parseDeploymentProviders, type Providers } from "./core/sampling/providers.js";
import { LOCAL_PRINCIPAL, matchCredential, parseCredentialPairs } from "./core/principal.js";

export { LOCAL_PRINCIPAL };

export interface Env {
  SESSIONS: DurableObjectNamespace<SessionObject>;
  /** One BridgeHub per principal: the WebSockets of that principal's bridges. */
  BRIDGES: DurableObjectNamespace<BridgeHub>;
  /** Bridge credentials: comma-separated `principal:token` pairs (a secret in a deployment). */
  BRIDGE_TOKENS?: string;
  CATALOG: KVNamespace;
  /** The web console's static files (`console/`); absent where a Worker is run without them (the benchmark). */
  ASSETS?: Fetcher;
  /** One CredentialVault per principal: OAuth credentials for remote servers, encrypted. */
  CREDENTIALS: DurableObjectNamespace<CredentialVault>;
  /** The secret the vault's AES-GCM key comes from; without it no credentials are stored. */
  CREDENTIALS_KEY?: string;
  /** The Worker's public origin for OAuth redirects (default: the origin the request came to). */
  PUBLIC_URL?: string;
  /** "true" lets sessions dial loopback and private addresses (local dev, tests). */
  ALLOW_PRIVATE_URLS?: string;
  /** JSON map NAME → ServerConfig that every session inherits. */
  MCP_SERVERS?: string;
  /** Default request timeout (ms) for servers that set none. */
  REQUEST_TIMEOUT_MS?: string;
  /** Share of the context window above which `mode=auto` switches to search (default 0.05). */
  SEARCH_THRESHOLD?: string;
  /** JSON map ID → Provider (models for sampling), without API keys. */
  MODEL_PROVIDERS?: string;
  /** Secret: JSON map ID → API key for MODEL_PROVIDERS. */
  MODEL_PROVIDER_KEYS?: string;
  /** Pending approvals are rejected after this long (ms); unset: they wait. */
  APPROVAL_TIMEOUT_MS?: string;
  /** Heartbeat cadence (ms) of long samplings that carry a progress token (default 15000). */
  SAMPLING_HEARTBEAT_MS?: string;
  /**
   * `local-dev` (only the local dev config sets it): a request without a token acts as
   * the principal `local`. Unset (or `oauth`): every API request needs an access token.
   */
  AUTH_MODE?: string;
  /** Operators who can sign in at /oauth/authorize: `principal:password,…` (a secret). */
  SIGN_IN_USERS?: string;
  /** Long-lived tokens of service principals (hosted backends): `principal:token,…` (a secret). */
  SERVICE_TOKENS?: string;
  /** The OAuth provider's grants, tokens and clients (hashed; props encrypted). */
  OAUTH_KV: KVNamespace;
  /** Set by the OAuth provider before it calls our handlers. */
  OAUTH_PROVIDER?: OAuthHelpers;
  /** Comma-separated hosts (`host` or `host:port`) the MCP endpoint answers for (DNS-rebinding protection); unset: any. */
  MCP_ALLOWED_HOSTS?: string;
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

/** Which principal a bridge token belongs to, if any. Tokens are compared in constant time. */
export function bridgePrincipal(env: Env, token: string | undefined): string | undefined {
  return matchCredential(parseCredentialPairs(env.BRIDGE_TOKENS), token);
}

export interface DeploymentSettings {
  allowPrivateUrls: boolean;
  servers: Record<string, ServerConfigInput>;
  requestTimeoutMs: number | undefined;
  searchThreshold: number;
  /** The deployment's model providers, keys merged in from the secret. */
  providers: Providers;
  approvalTimeoutMs: number | undefined;
  samplingHeartbeatMs: number | undefined;
}

export function readSettings(env: Env): DeploymentSettings {
  const timeout = Number(env.REQUEST_TIMEOUT_MS);
  const threshold = Number(env.SEARCH_THRESHOLD);
  return {
    allowPrivateUrls: env.ALLOW_PRIVATE_URLS === "true",
    servers: parseDeploymentServers(env.MCP_SERVERS),
    requestTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
    searchThreshold: Number.isFinite(threshold) && threshold > 0 && threshold <= 1 ? threshold : DEFAULT_SEARCH_THRESHOLD,
    providers: parseDeploymentProviders(env.MODEL_PROVIDERS, env.MODEL_PROVIDER_KEYS),
    approvalTimeoutMs: positive(env.APPROVAL_TIMEOUT_MS),
    samplingHeartbeatMs: positive(env.SAMPLING_HEARTBEAT_MS),
  };
}

function positive(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 ? n : undefined;
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
