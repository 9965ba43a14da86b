/**
 * mcp-edge's authorization endpoint (`/oauth/authorize`): the OAuth provider validates
 * the request (client, redirect URI, PKCE, resource); the configured sign-in method
 * (src/auth/sign-in.ts) says who the user is; the grant then carries that principal
 * (`props: {principal}`), and every access token issued from it acts as that principal.
 * The page shows who asks and where the code goes, and cannot be framed.
 */
import { AuthorizationError, authorizationErrorRedirect, CimdFetchError, type AuthRequest, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Hono } from "hono";
import { McpEdgeError } from "../core/errors.js";
import type { PrincipalProps } from "../core/principal.js";
import type { Env } from "../env.js";
import { errorResponse } from "../http/errors.js";
import { configuredSignIn, type SignInMethod, type SignInView } from "./sign-in.js";

export const AUTHORIZE_PATH = "/oauth/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

function helpers(env: Env): OAuthHelpers {
  if (!env.OAUTH_PROVIDER) throw new McpEdgeError("internal", "the authorization endpoint runs behind the OAuth provider");
  return env.OAUTH_PROVIDER;
}

function requireSignIn(env: Env): SignInMethod {
  const method = configuredSignIn(env);
  if (!method) throw new McpEdgeError("authNotConfigured", "no sign-in method is configured (set SIGN_IN_USERS)");
  return method;
}

/** Errors the OAuth library reports for a bad request: back to the client when it is trusted, a 400 here otherwise. */
function authorizationFailure(error: unknown): Response {
  if (error instanceof AuthorizationError) {
    if (error.redirectTo) return Response.redirect(error.redirectTo, 302);
    return errorResponse(new McpEdgeError("badRequest", `authorization request refused: ${error.description}`, { oauthError: error.code }));
  }
  if (error instanceof CimdFetchError) return errorResponse(new McpEdgeError("badRequest", "the client's metadata document could not be fetched"));
  throw error;
}

async function view(oauth: OAuthHelpers, request: AuthRequest, url: URL, error?: string): Promise<SignInView> {
  const client = await oauth.lookupClient(request.clientId);
  return { clientName: client?.clientName || request.clientId, redirectUri: request.redirectUri, action: `${url.pathname}${url.search}`, ...(error ? { error } : {}) };
}

export function registerAuthorize(app: Hono<{ Bindings: Env }>): void {
  app.get(AUTHORIZE_PATH, async (c) => {
    const method = requireSignIn(c.env);
    const oauth = helpers(c.env);
    try {
      const request = await oauth.parseAuthRequest(c.req.raw);
      return new Response(method.page(await view(oauth, request, new URL(c.req.url))), { headers: PAGE_HEADERS });
    } catch (error) {
      return authorizationFailure(error);
    }
  });

  // The form posts back to the same URL, so the authorization request is parsed (and
  // validated) again from its query rather than trusted from hidden fields.
  app.post(AUTHORIZE_PATH, async (c) => {
    const method = requireSignIn(c.env);
    const oauth = helpers(c.env);
    try {
      const request = await oauth.parseAuthRequest(c.req.raw);
      const form = await c.req.raw.formData().catch(() => new FormData());
      if (form.get("decision") === "deny") return Response.redirect(authorizationErrorRedirect(request, "access_denied"), 302);
      const result = await method.verify(form, c.req.raw, c.env);
      if (!result.ok) {
        return new Response(method.page(await view(oauth, request, new URL(c.req.url), result.message)), { status: 401, headers: PAGE_HEADERS });
      }
      const props: PrincipalProps = { principal: result.principal };
      const { redirectTo } = await oauth.completeAuthorization({
        request,
        userId: result.principal,
        metadata: { signIn: method.name },
        scope: request.scope,
        props,
      });
      return Response.redirect(redirectTo, 302);
    } catch (error) {
      return authorizationFailure(error);
    }
  });
}
