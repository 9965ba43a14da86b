/**
 * Principals: who a request acts for (a signed-in user, a hosted backend's service
 * principal, or `local` in local dev). Every session, bridge and credential belongs to
 * one. Credential lists (`BRIDGE_TOKENS`, `SERVICE_TOKENS`, `SIGN_IN_USERS`) are
 * comma-separated `principal:secret` pairs, compared in constant time. Pure.
 */
import { z } from "zod";

/** The principal of requests without a token in local dev (`AUTH_MODE=local-dev`). */
export const LOCAL_PRINCIPAL = "local";

/** A principal's name: it becomes part of OAuth tokens (`user:grant:secret`) and Durable Object names, so no `:` or `,`. */
export const PrincipalName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/, "a principal is 1-128 characters of [A-Za-z0-9._@-]");

/** What mcp-edge's access tokens carry (the OAuth grant's props). */
export const PrincipalProps = z.object({ principal: PrincipalName });
export type PrincipalProps = z.infer<typeof PrincipalProps>;

export interface CredentialPair {
  principal: string;
  secret: string;
}

/** Parses `principal:secret,…`; entries without both halves, or with an invalid principal, are skipped. */
export function parseCredentialPairs(text: string | undefined): CredentialPair[] {
  const out: CredentialPair[] = [];
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf(":");
    if (at <= 0) continue;
    const principal = pair.slice(0, at).trim();
    const secret = pair.slice(at + 1).trim();
    if (secret && PrincipalName.safeParse(principal).success) out.push({ principal, secret });
  }
  return out;
}

/**
 * The principal whose secret equals `presented`, if any. Every pair is compared, each
 * in time that depends only on the lengths, so timing does not tell which one matched.
 */
export function matchCredential(pairs: readonly CredentialPair[], presented: string | undefined): string | undefined {
  if (!presented) return undefined;
  let found: string | undefined;
  for (const pair of pairs) if (timingSafeEqual(pair.secret, presented)) found ??= pair.principal;
  return found;
}

export function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
