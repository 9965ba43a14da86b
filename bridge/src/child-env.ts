/**
 * The environment a stdio server starts with: the bridge's own environment minus the
 * bridge token and anything that looks like a secret, plus what the server's config sets.
 * A secret the config names explicitly is passed on: that is the user's choice, the
 * deny list only stops credentials leaking to servers that never asked for them.
 */
import { compileDenyList, DEFAULT_DENY_PATTERNS } from "./deny-list.js";

/** The bridge's credential for mcp-edge; no child ever needs it. */
export const BRIDGE_TOKEN_VAR = "MCP_EDGE_BRIDGE_TOKEN";

export interface ChildEnvInput {
  /** Usually `process.env`; undefined values are dropped. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  /** The server's configured env (already expanded); always wins. */
  serverEnv?: Readonly<Record<string, string>>;
  /** Globs of names withheld from the child; defaults to DEFAULT_DENY_PATTERNS. */
  denyPatterns?: readonly string[];
}

export function buildChildEnv(input: ChildEnvInput): Record<string, string> {
  const denied = compileDenyList(input.denyPatterns ?? DEFAULT_DENY_PATTERNS);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.parentEnv)) {
    if (value === undefined || name === BRIDGE_TOKEN_VAR || denied(name)) continue;
    env[name] = value;
  }
  return { ...env, ...input.serverEnv };
}
