/**
 * mcp-edge's own API behind its OAuth provider: the authorization-code + PKCE flow
 * driven headlessly through the sign-in form, tokens carrying principals, another
 * principal's session answering 404 on every session route, service tokens, bridge
 * tokens, and local dev (no token → `local`). The worker project runs with
 * AUTH_MODE=local-dev; the strict (deployed) mode is exercised by calling the same
 * Worker with that one binding removed, and in test/deployed/.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ROUTES } from "../../src/api/routes.js";
import { McpEdgeApiError, McpEdgeClient } from "../../src/client/index.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { authorizeUrl, postSignIn, registerClient, REDIRECT_URI, signIn, tokenRequest, type Send } from "../support/oauth-flow.js";
import { peers, remote } from "./helpers.js";

const ORIGIN = "https://mcp-edge.test";
const send: Send = (request) => exports.default.fetch(request);

/** The same Worker with other bindings (a deployment's, or a revoked bridge token). */
const withEnv =
  (overrides: Partial<Env>): Send =>
  async (request) =>
    worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...(env as unknown as Env), ...overrides }, createExecutionContext());
const strict = withEnv({ AUTH_MODE: undefined });

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function call(method: string, path: string, { token, body, headers = {}, via = send }: { token?: string; body?: unknown; headers?: Record<string, string>; via?: Send } = {}): Promise<Answer> {
  const res = await via(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // an event stream or a page
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

async function newSession(token: string | undefined, servers: Record<string, unknown> = {}): Promise<string> {
  const res = await call("POST", "/v1/sessions", { token, body: { servers } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the OAuth provider's endpoints", () => {
  it("publish authorization server and protected resource metadata", async () => {
    const as = await call("GET", "/.well-known/oauth-authorization-server");
    expect(as.status).toBe(200);
    expect(as.body).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
    });
    expect(as.body.code_challenge_methods_supported).toContain("S256");
    const pr = await call("GET", "/.well-known/oauth-protected-resource/v1");
    expect(pr.status).toBe(200);
    expect(pr.body).toMatchObject({ resource: `${ORIGIN}/v1`, authorization_servers: [ORIGIN] });
  });

  it("every provider-served entry of the route table answers", async () => {
    for (const route of ROUTES.filter((r) => r.served === "provider")) {
      const res = await call(route.method.toUpperCase(), route.path, route.method === "post" ? { body: {} } : {});
      expect(res.status, `${route.method} ${route.path}`).not.toBe(404);
    }
  });
});

describe("authorization code + PKCE through the sign-in form", () => {
  it("issues a token that acts as the signed-in principal on the API", async () => {
    const tokens = await signIn(send, ORIGIN, "alice", "alice-password");
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.refresh_token).toBeTruthy();

    const id = await newSession(tokens.access_token, { everything: remote(peers.everything) });
    const mine = await call("GET", `/v1/sessions/${id}`, { token: tokens.access_token });
    expect(mine.status).toBe(200);
    expect(mine.body.servers.everything.status).toBe("connected");
    const echo = await call("POST", `/v1/sessions/${id}/tools/call`, { token: tokens.access_token, body: { name: "everything_echo", arguments: { message: "as alice" } } });
    expect(echo.body.output).toBe("Echo: as alice");
    // Without a token, local dev acts as `local`, which does not own alice's session.
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect((await call("GET", "/v1/bridges", { token: tokens.access_token })).body).toEqual({ bridges: [] });
  });

  it("a refresh token gives a new working access token", async () => {
    const tokens = await signIn(send, ORIGIN, "alice", "alice-password");
    const id = await newSession(tokens.access_token);
    const refreshed = await tokenRequest(send, ORIGIN, { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: tokens.clientId });
    expect(refreshed.status).toBe(200);
    const fresh = (await refreshed.json()) as { access_token: string };
    expect(fresh.access_token).not.toBe(tokens.access_token);
    expect((await call("GET", `/v1/sessions/${id}`, { token: fresh.access_token })).status).toBe(200);
  });

  it("the page names the client and cannot be framed; a wrong password is refused without a code", async () => {
    const clientId = await registerClient(send, ORIGIN, "Tool <b>X</b>");
    const start = await authorizeUrl(ORIGIN, clientId);
    const page = await send(new Request(start.url));
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain("Tool &lt;b&gt;X&lt;/b&gt;");
    expect(html).toContain(REDIRECT_URI);

    const wrong = await postSignIn(send, start.url, { principal: "alice", password: "bob-password", decision: "allow" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("location")).toBeNull();
    expect(await wrong.text()).toContain("unknown principal or wrong password");
    const unknown = await postSignIn(send, start.url, { principal: "mallory", password: "alice-password", decision: "allow" });
    expect(unknown.status).toBe(401);
  });

  it("deny sends the client access_denied with its state", async () => {
    const clientId = await registerClient(send, ORIGIN);
    const start = await authorizeUrl(ORIGIN, clientId);
    const denied = await postSignIn(send, start.url, { decision: "deny" });
    expect(denied.status).toBe(302);
    const back = new URL(denied.headers.get("location")!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe(start.state);
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("an unknown client or a redirect URI it did not register is a 400 here, never a redirect", async () => {
    const unknown = await send(new Request(`${ORIGIN}/oauth/authorize?response_type=code&client_id=nope&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`));
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error.code).toBe("badRequest");
    const clientId = await registerClient(send, ORIGIN);
    const start = await authorizeUrl(ORIGIN, clientId);
    const elsewhere = await send(new Request(start.url.replace(encodeURIComponent(REDIRECT_URI), encodeURIComponent("https://evil.example/cb"))));
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get("location")).toBeNull();
  });

  it("the code is bound to its PKCE verifier and works once", async () => {
    const clientId = await registerClient(send, ORIGIN);
    const start = await authorizeUrl(ORIGIN, clientId);
    const signedIn = await postSignIn(send, start.url, { principal: "bob", password: "bob-password", decision: "allow" });
    const code = new URL(signedIn.headers.get("location")!).searchParams.get("code")!;
    const exchange = (verifier: string) => tokenRequest(send, ORIGIN, { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier });
    const wrong = await exchange("x".repeat(43));
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as any).error).toBe("invalid_grant");
  });
});

describe("the typed client", () => {
  it("sends its token: the session is the token's principal's; a bad token is a 401 McpEdgeApiError", async () => {
    const fetch = (url: string, init: RequestInit) => exports.default.fetch(new Request(url, init));
    const bob = (await signIn(send, ORIGIN, "bob", "bob-password")).access_token;
    const client = new McpEdgeClient({ baseUrl: ORIGIN, fetch, token: () => bob });
    const session = await client.createSession({});
    expect((await client.getSession(session.id)).id).toBe(session.id);
    const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e);
    const asLocal = await failure(new McpEdgeClient({ baseUrl: ORIGIN, fetch }).getSession(session.id));
    expect(McpEdgeApiError.is(asLocal) && asLocal.status === 404 && asLocal.code === "sessionNotFound").toBe(true);
    const bad = await failure(new McpEdgeClient({ baseUrl: ORIGIN, fetch, token: "bogus" }).getSession(session.id));
    expect(McpEdgeApiError.is(bad) && bad.status === 401 && bad.code === "unauthorized").toBe(true);
  });
});

describe("401s", () => {
  it("no token (outside local dev): 401 unauthorized with a Bearer challenge naming the resource metadata", async () => {
    for (const [method, path] of [["POST", "/v1/sessions"], ["GET", "/v1/bridges"], ["GET", "/v1/sessions/ses_0000000000000000000000000a"]] as const) {
      const res = await call(method, path, { via: strict, body: method === "POST" ? {} : undefined });
      expect(res.status, path).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
      expect(res.body.error.message).toMatch(/access token/);
      const challenge = res.headers.get("www-authenticate") ?? "";
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/v1"`);
    }
  });

  it("a bad token: 401 invalid_token, in local dev too (a token is always checked)", async () => {
    for (const token of ["nope", "alice:abcdefghijklmnop:qrstuvwxyzabcdefghijklmnopqrstuv", "test-bridge-token"]) {
      for (const via of [send, strict]) {
        const res = await call("POST", "/v1/sessions", { token, body: {}, via });
        expect(res.status, token).toBe(401);
        expect(res.body.error.code).toBe("unauthorized");
        expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
      }
    }
  });

  it("an expired token: 401 (the clock moved past its hour)", async () => {
    const tokens = await signIn(send, ORIGIN, "alice", "alice-password");
    const id = await newSession(tokens.access_token);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + (tokens.expires_in + 60) * 1000);
    const res = await call("GET", `/v1/sessions/${id}`, { token: tokens.access_token });
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({ code: "unauthorized", message: "Access token expired" });
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    vi.useRealTimers();
    expect((await call("GET", `/v1/sessions/${id}`, { token: tokens.access_token })).status).toBe(200);
  });

  it("a revoked token (RFC 7009 at the token endpoint): 401", async () => {
    const tokens = await signIn(send, ORIGIN, "bob", "bob-password");
    const id = await newSession(tokens.access_token);
    const revoked = await tokenRequest(send, ORIGIN, { token: tokens.access_token, token_type_hint: "access_token", client_id: tokens.clientId });
    expect(revoked.status).toBe(200);
    const res = await call("GET", `/v1/sessions/${id}`, { token: tokens.access_token });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
  });

  it("a deployment (no AUTH_MODE) still serves the public routes without a token", async () => {
    expect((await call("GET", "/health", { via: strict })).status).toBe(200);
    expect((await call("GET", "/v1/openapi.json", { via: strict })).status).toBe(200);
  });
});

describe("isolation: another principal's session is a 404 on every session route", () => {
  /** Every session route of the table, with its path filled in for `id`. */
  const sessionRoutes = ROUTES.filter((r) => r.served === "session" && !(r.method === "post" && r.path === "/v1/sessions"));

  it("covers the whole table (self-test)", () => {
    expect(sessionRoutes.length).toBeGreaterThanOrEqual(18);
    expect(sessionRoutes.map((r) => r.path)).toContain("/v1/sessions/{id}/events");
  });

  it("bob, a service principal and `local` get sessionNotFound on alice's session; alice's session is untouched", async () => {
    const alice = (await signIn(send, ORIGIN, "alice", "alice-password")).access_token;
    const bob = (await signIn(send, ORIGIN, "bob", "bob-password")).access_token;
    const id = await newSession(alice, { everything: remote(peers.everything) });
    for (const [who, token] of [["bob", bob], ["backend", "test-service-token"], ["local", undefined]] as const) {
      for (const route of sessionRoutes) {
        const path = route.path.replace("{id}", id).replace("{name}", "everything").replace("{turnId}", "01JTURN0000000000000000000");
        const res = await call(route.method.toUpperCase(), path, { token, body: route.method === "get" || route.method === "delete" ? undefined : {} });
        expect(res.status, `${who}: ${route.method} ${path}`).toBe(404);
        expect(res.body.error.code, `${who}: ${route.method} ${path}`).toBe("sessionNotFound");
      }
    }
    // Bob's DELETE and disconnect did nothing.
    const still = await call("GET", `/v1/sessions/${id}`, { token: alice });
    expect(still.status).toBe(200);
    expect(still.body.servers.everything.status).toBe("connected");
  });

  it("the event stream's WebSocket is the owner's alone: another principal's upgrade closes with 4404", async () => {
    const alice = (await signIn(send, ORIGIN, "alice", "alice-password")).access_token;
    const bob = (await signIn(send, ORIGIN, "bob", "bob-password")).access_token;
    const id = await newSession(alice);
    const open = async (token: string | undefined) => {
      const res = await send(new Request(`${ORIGIN}/v1/sessions/${id}/events`, { headers: { upgrade: "websocket", ...(token ? { authorization: `Bearer ${token}` } : {}) } }));
      const socket = res.webSocket!;
      const first = new Promise<{ kind: "message" | "close"; code?: number }>((resolve) => {
        socket.addEventListener("message", () => resolve({ kind: "message" }));
        socket.addEventListener("close", (e) => resolve({ kind: "close", code: e.code }));
      });
      socket.accept();
      return { res, socket, first };
    };
    for (const token of [bob, undefined]) {
      const other = await open(token);
      expect(other.res.status).toBe(101);
      expect(await other.first).toEqual({ kind: "close", code: 4404 });
    }
    // The owner gets the session's events (the backlog holds at least the session's creation).
    const owner = await open(alice);
    await call("POST", `/v1/sessions/${id}/turns/01JTURN0000000000000000000/end`, { token: alice, body: { status: "completed" } });
    expect((await owner.first).kind).toBe("message");
    owner.socket.close(1000, "done");
  });

  it("a caller cannot name the principal with the internal header", async () => {
    const alice = (await signIn(send, ORIGIN, "alice", "alice-password")).access_token;
    const bob = (await signIn(send, ORIGIN, "bob", "bob-password")).access_token;
    const id = await newSession(alice);
    const forged = { "x-mcp-edge-principal": "alice" };
    expect((await call("GET", `/v1/sessions/${id}`, { headers: forged })).status).toBe(404);
    expect((await call("GET", `/v1/sessions/${id}`, { token: bob, headers: forged })).status).toBe(404);
    // And a session created with a forged header belongs to the caller, not to the name in it.
    const bobs = await newSession(undefined);
    expect((await call("GET", `/v1/sessions/${bobs}`, { token: alice })).status).toBe(404);
    expect((await call("GET", `/v1/sessions/${bobs}`)).status).toBe(200);
  });

  it("the owner survives eviction: the principal is persisted with the session", async () => {
    const alice = (await signIn(send, ORIGIN, "alice", "alice-password")).access_token;
    const id = await newSession(alice);
    await runInDurableObject(env.SESSIONS.getByName(id), (_instance, state) => state.abort("evicted by test")).catch(() => undefined);
    expect((await call("GET", `/v1/sessions/${id}`, { token: alice })).status).toBe(200);
    expect((await call("GET", `/v1/sessions/${id}`, { token: "test-service-token" })).status).toBe(404);
  });
});

describe("service tokens (SERVICE_TOKENS)", () => {
  it("a hosted backend's token acts as its service principal, locally and in a deployment", async () => {
    for (const via of [send, strict]) {
      const created = await call("POST", "/v1/sessions", { token: "test-service-token", body: {}, via });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect((await call("GET", `/v1/sessions/${id}`, { token: "test-service-token", via })).status).toBe(200);
      expect((await call("GET", `/v1/sessions/${id}`, { via: send })).status).toBe(404);
    }
  });

  it("a removed service token is refused at once", async () => {
    const revoked = withEnv({ AUTH_MODE: undefined, SERVICE_TOKENS: "other:another-token" });
    const res = await call("POST", "/v1/sessions", { token: "test-service-token", body: {}, via: revoked });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
  });
});

describe("bridges", () => {
  const connect = (via: Send, token: string) =>
    via(new Request(`${ORIGIN}/v1/bridges/connect?bridge=auth-test`, { headers: { upgrade: "websocket", authorization: `Bearer ${token}` } }));

  it("a bridge token that was removed from BRIDGE_TOKENS is refused", async () => {
    const accepted = await connect(send, "test-bridge-token");
    expect(accepted.status).toBe(101);
    accepted.webSocket?.accept();
    accepted.webSocket?.close(1000, "test over");
    const revoked = await connect(withEnv({ BRIDGE_TOKENS: "someone-else:other-bridge-token" }), "test-bridge-token");
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as any).error.code).toBe("unauthorized");
  });

  it("an OAuth access token is not a bridge token", async () => {
    const alice = (await signIn(send, ORIGIN, "alice", "alice-password")).access_token;
    expect((await connect(send, alice)).status).toBe(401);
    expect((await connect(send, "test-service-token")).status).toBe(401);
  });
});
