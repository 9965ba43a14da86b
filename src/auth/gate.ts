/**
 * The Worker's front door: decides who a request acts for before the API sees it.
 * - A deployment without authentication configured answers every request 503.
 * - Public routes (`/health`, `/v1/openapi.json`, the bridges' WebSocket, which checks
 *   its own bridge token, and any non-API page such as `/oauth/callback`) go straight on.
 * - `/v1/*` goes through `@cloudflare/workers-oauth-provider`: an access token of
 *   mcp-edge's own provider (authorization code + PKCE) or a configured service token
 *   (`SERVICE_TOKENS`) gives the principal; in local dev a request without any
 *   `Authorization` header acts as `local`.
 * - The provider also serves its own endpoints: metadata (`/.well-known/oauth-*`),
 *   `/oauth/token`, `/oauth/register`, and calls our `/oauth/authorize`.
 * Its 401s are rewritten into the API's error shape, keeping `WWW-Authenticate`.
 */
import { OAuthProvider, type ResolveExternalTokenResult } from "@cloudflare/workers-oauth-provider";
import type { createApp } from "../app.js";
import { McpEdgeError } from "../core/errors.js";
import { LOCAL_PRINCIPAL, matchCredential, parseCredentialPairs, PrincipalProps } from "../core/principal.js";
import type { Env } from "../env.js";
import { errorResponse } from "../http/errors.js";
import { AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH } from "./authorize.js";
import { authMode } from "./mode.js";

/** The protected resource: everything under this path needs a token. */
export const API_PREFIX = "/v1";

/** Routes under /v1 that need no access token (the bridges' WebSocket checks its bridge token). */
const PUBLIC_API_PATHS = new Set(["/v1/openapi.json", "/v1/bridges/connect"]);

const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** Providers are built per origin (the resource URL is the origin's `/v1`); a few origins at most. */
const MAX_PROVIDERS = 16;

type App = ReturnType<typeof createApp>;

const isApiPath = (path: string) => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
const isProviderPath = (path: string) => path.startsWith("/.well-known/oauth-") || path === AUTHORIZE_PATH || path === TOKEN_PATH || path === REGISTER_PATH;

/** `SERVICE_TOKENS`: a hosted backend's long-lived bearer token names its service principal. */
function serviceTokenResolver(resource: string) {
  return async ({ token, env }: { token: string; env: Env }): Promise<ResolveExternalTokenResult | null> => {
    const principal = matchCredential(parseCredentialPairs(env.SERVICE_TOKENS), token);
    if (principal === undefined) return null;
    const props: PrincipalProps = { principal };
    return { props, audience: resource };
  };
}

function buildProvider(origin: string, app: App): OAuthProvider<Env> {
  const resource = `${origin}${API_PREFIX}`;
  return new OAuthProvider<Env>({
    apiRoute: API_PREFIX,
    apiHandler: {
      fetch(request, env, ctx) {
        const props = PrincipalProps.safeParse(ctx.props);
        if (!props.success) return errorResponse(new McpEdgeError("unauthorized", "the access token names no valid principal"));
        return app.fetch(request, env, ctx, props.data.principal);
      },
    },
    defaultHandler: { fetch: (request, env, ctx) => app.fetch(request as Request, env, ctx, undefined) },
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    resourceMetadata: { resource, authorization_servers: [origin], bearer_methods_supported: ["header"], resource_name: "mcp-edge API" },
    resolveExternalToken: serviceTokenResolver(resource),
    onError: ({ status, code }) => {
      // The provider's default logs the description; status and code say enough and carry nothing secret.
      if (status >= 500) console.warn(`oauth: ${status} ${code}`);
    },
  });
}

/** The provider's 401 (no body, or an RFC 6750 body) in the API's error shape; the challenge header stays. */
async function typedUnauthorized(response: Response): Promise<Response> {
  if (response.status !== 401) return response;
  const text = await response.text();
  let description: string | undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error === "object" && body.error !== null) return new Response(text, response);
    if (typeof body.error_description === "string") description = body.error_description;
  } catch {
    // No body: the request carried no token.
  }
  const typed = errorResponse(new McpEdgeError("unauthorized", description ?? "an access token is required (Authorization: Bearer …)"));
  const challenge = response.headers.get("www-authenticate");
  if (challenge) typed.headers.set("www-authenticate", challenge);
  typed.headers.set("cache-control", "no-store");
  return typed;
}

export function createGate(app: App) {
  const providers = new Map<string, OAuthProvider<Env>>();

  function providerFor(origin: string): OAuthProvider<Env> {
    let provider = providers.get(origin);
    if (!provider) {
      try {
        provider = buildProvider(origin, app);
      } catch {
        // The provider accepts https origins, and http only on loopback.
        throw new McpEdgeError("badRequest", `mcp-edge's OAuth needs https (or http on a loopback host), not ${origin}`);
      }
      if (providers.size >= MAX_PROVIDERS) providers.clear();
      providers.set(origin, provider);
    }
    return provider;
  }

  return {
    async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
      const mode = authMode(env);
      if (mode.kind === "misconfigured") return errorResponse(new McpEdgeError("authNotConfigured", `mcp-edge refuses to serve: ${mode.reason}`));
      const url = new URL(request.url);
      const path = url.pathname;
      const api = isApiPath(path) && !PUBLIC_API_PATHS.has(path);
      if (!api && !isProviderPath(path)) return app.fetch(request, env, ctx, undefined);
      if (api && mode.kind === "local-dev" && !request.headers.has("authorization")) return app.fetch(request, env, ctx, LOCAL_PRINCIPAL);
      try {
        const response = await providerFor(url.origin).fetch(request, env, ctx);
        return api ? await typedUnauthorized(response) : response;
      } catch (error) {
        return errorResponse(error);
      }
    },
  };
}
