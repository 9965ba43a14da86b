/**
 * The sign-in step of mcp-edge's own authorization endpoint, behind one interface so a
 * deployment can plug in another method (an upstream OIDC provider through the OAuth
 * provider's `beginUpstream`/`finishUpstream`, or Cloudflare Access headers). One method
 * ships: a form checked against operator-configured credentials (`SIGN_IN_USERS`, a
 * secret of `principal:password` pairs), which a test can drive headlessly with fetch.
 */
import { matchCredential, parseCredentialPairs, PrincipalName, timingSafeEqual } from "../core/principal.js";
import type { Env } from "../env.js";

export type SignInResult = { ok: true; principal: string } | { ok: false; message: string };

/** What the sign-in page shows: who asks, where the answer goes, and where to post. */
export interface SignInView {
  clientName: string;
  redirectUri: string;
  /** The authorize URL (path and query) the form posts back to. */
  action: string;
  error?: string;
}

export interface SignInMethod {
  readonly name: string;
  /** Whether the deployment configured this method. */
  configured(env: Env): boolean;
  /** The HTML page shown at `GET /oauth/authorize` once the authorization request is valid. */
  page(view: SignInView): string;
  /** A submitted sign-in (`POST /oauth/authorize`): the principal, or why not. */
  verify(form: FormData, request: Request, env: Env): Promise<SignInResult>;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `SIGN_IN_USERS="alice:password,…"`: the form asks for a principal and its password. */
export const passwordSignIn: SignInMethod = {
  name: "password",
  configured: (env) => parseCredentialPairs(env.SIGN_IN_USERS).length > 0,
  page: (view) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to mcp-edge</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto">
<h1>Sign in to mcp-edge</h1>
<p><strong>${escapeHtml(view.clientName)}</strong> asks to use mcp-edge as you. After you sign in it is sent to
<code>${escapeHtml(view.redirectUri)}</code>.</p>
${view.error ? `<p role="alert" style="color: #b00">${escapeHtml(view.error)}</p>` : ""}
<form method="post" action="${escapeHtml(view.action)}">
<p><label>Principal <input name="principal" autocomplete="username" required></label></p>
<p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
<p><button name="decision" value="allow">Sign in and allow</button> <button name="decision" value="deny" formnovalidate>Deny</button></p>
</form></body></html>`,
  async verify(form, _request, env) {
    const principal = String(form.get("principal") ?? "");
    const password = String(form.get("password") ?? "");
    const refused: SignInResult = { ok: false, message: "unknown principal or wrong password" };
    if (!PrincipalName.safeParse(principal).success || !password) return refused;
    // Digests have one length, so the comparison's time says nothing about the password's.
    const presented = await sha256Hex(`${principal}:${password}`);
    const pairs = await Promise.all(
      parseCredentialPairs(env.SIGN_IN_USERS).map(async (pair) => ({ principal: pair.principal, secret: await sha256Hex(`${pair.principal}:${pair.secret}`) })),
    );
    const matched = matchCredential(pairs, presented);
    return matched !== undefined && timingSafeEqual(matched, principal) ? { ok: true, principal: matched } : refused;
  },
};

/** The sign-in methods, in the order they are tried; the first configured one is used. */
export const SIGN_IN_METHODS: readonly SignInMethod[] = [passwordSignIn];

export function configuredSignIn(env: Env): SignInMethod | undefined {
  return SIGN_IN_METHODS.find((method) => method.configured(env));
}
