/**
 * The Worker's bindings and deployment settings, read once per isolate.
 */
import type { SessionObject } from "../durable-objects/session-object.js";
import { parseDeploymentServers, type ServerConfigInput } from "./core/config.js";

export interface Env {
  SESSIONS: DurableObjectNamespace<SessionObject>;
  CATALOG: KVNamespace;
  /** "true" lets sessions dial loopback and private addresses (local dev, tests). */
  ALLOW_PRIVATE_URLS?: string;
  /** JSON map NAME → ServerConfig that every session inherits. */
  MCP_SERVERS?: string;
  /** Default request timeout (ms) for servers that set none. */
  REQUEST_TIMEOUT_MS?: string;
}

export interface DeploymentSettings {
  allowPrivateUrls: boolean;
  servers: Record<string, ServerConfigInput>;
  requestTimeoutMs: number | undefined;
}

export function readSettings(env: Env): DeploymentSettings {
  const timeout = Number(env.REQUEST_TIMEOUT_MS);
  return {
    allowPrivateUrls: env.ALLOW_PRIVATE_URLS === "true",
    servers: parseDeploymentServers(env.MCP_SERVERS),
    requestTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : undefined,
  };
}
