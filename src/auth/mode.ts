/**
 * How the Worker authenticates API callers, decided from its bindings:
 * - `local-dev` (`AUTH_MODE=local-dev`, set only by `npm start`, the tests and the
 *   benchmarks): a request without a token acts as the principal `local`; a request
 *   with a token is checked as usual.
 * - `oauth` (the default, a deployment): every API request needs an access token.
 * A deployment in which nobody could ever get a token (no sign-in method, no service
 * token) or whose OAuth storage is missing refuses to serve instead of serving openly.
 */
import { parseCredentialPairs } from "../core/principal.js";
import type { Env } from "../env.js";
import { configuredSignIn } from "./sign-in.js";

export type AuthMode = { kind: "local-dev" } | { kind: "oauth" } | { kind: "misconfigured"; reason: string };

export const LOCAL_DEV = "local-dev";

/** Bindings do not change while an isolate lives: decide once per env object, not per request. */
const decided = new WeakMap<Env, AuthMode>();

export function authMode(env: Env): AuthMode {
  let mode = decided.get(env);
  if (!mode) decided.set(env, (mode = decide(env)));
  return mode;
}

function decide(env: Env): AuthMode {
  if (env.AUTH_MODE === LOCAL_DEV) return { kind: "local-dev" };
  if (env.AUTH_MODE !== undefined && env.AUTH_MODE !== "oauth") {
    return { kind: "misconfigured", reason: `AUTH_MODE must be "oauth" (or unset) in a deployment; "${LOCAL_DEV}" is for the local dev config only` };
  }
  if (!env.OAUTH_KV) return { kind: "misconfigured", reason: "the OAUTH_KV namespace is not bound (see wrangler.toml)" };
  if (!configuredSignIn(env) && parseCredentialPairs(env.SERVICE_TOKENS).length === 0) {
    return {
      kind: "misconfigured",
      reason: "authentication is not configured: set SIGN_IN_USERS and/or SERVICE_TOKENS as secrets (wrangler secret put), see the README's API authentication section",
    };
  }
  return { kind: "oauth" };
}
