/**
 * Signing in to a real OAuth-protected MCP server (the MCP SDK's example server with
 * --oauth: protected-resource metadata, dynamic registration, PKCE, an /authorize that
 * approves at once) through mcp-edge's API, the way a browser would: POST …/auth, follow
 * the authorization URL, land on our /oauth/callback.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PendingFlow } from "../../durable-objects/credential-records.js";
import { STATE_TTL_MS } from "../../src/core/oauth/state.js";
import { api, createSession, peers as allPeers, remote } from "./helpers.js";

// The example server names its resource http://localhost:PORT/mcp; the SDK checks that the
// protected resource matches the URL we dial.
const peers = { ...allPeers, oauth: allPeers.oauth.replace("127.0.0.1", "localhost") };

interface Page {
  status: number;
  text: string;
}

async function page(url: string): Promise<Page> {
  const response = await exports.default.fetch(new Request(url));
  return { status: response.status, text: await response.text() };
}

/** POST …/auth, then the authorization server's /authorize (it approves at once): our callback URL with code and state. */
async function authorize(sessionId: string, server: string): Promise<URL> {
  const started = await api("POST", `/v1/sessions/${sessionId}/servers/${server}/auth`);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const response = await fetch(started.body.authorizationUrl, { redirect: "manual" });
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location")!);
}

async function signIn(sessionId: string, server: string): Promise<Page> {
  return page((await authorize(sessionId, server)).href);
}

async function status(sessionId: string, server: string) {
  return (await api("GET", `/v1/sessions/${sessionId}`)).body.servers[server];
}

describe("OAuth sign-in to a remote MCP server", () => {
  it("POST /auth → authorize → callback: connected, tools callable; the URL carries PKCE S256, state, resource and our redirect", async () => {
    const session = await createSession({ oauth: remote(peers.oauth) });
    expect(session.servers.oauth!.status).toBe("needs_auth");
    const started = await api("POST", `/v1/sessions/${session.id}/servers/oauth/auth`);
    const url = new URL(started.body.authorizationUrl);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toMatch(new RegExp(`^${session.id}\\.`));
    expect(url.searchParams.get("redirect_uri")).toBe("http://mcp-edge.test/oauth/callback");
    expect(url.searchParams.get("resource")).toBe(peers.oauth);
    // Nothing is stored until the flow succeeds: still needs_auth, and no credentials.
    expect(await status(session.id, "oauth")).toMatchObject({ status: "needs_auth" });
    expect((await api("POST", `/v1/sessions/${session.id}/servers/oauth/debug`)).body.credentials).toBe(false);

    const done = await signIn(session.id, "oauth");
    expect(done.status).toBe(200);
    expect(done.text).toContain("Signed in");
    expect(await status(session.id, "oauth")).toMatchObject({ status: "connected", tools: expect.any(Number) });
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "oauth_greet", arguments: { name: "edge" } });
    expect(call.status).toBe(200);
    expect(call.body.output).toContain("edge");
  });

  it("a second session of the same principal reuses the credentials; a changed URL does not", async () => {
    const first = await createSession({ oauth: remote(peers.oauth) });
    expect((await signIn(first.id, "oauth")).status).toBe(200);
    const second = await createSession({ oauth: remote(peers.oauth), moved: remote(`${peers.oauth}?tenant=2`) });
    expect(second.servers.oauth!.status).toBe("connected");
    expect(second.servers.moved!.status).toBe("needs_auth");
    // Changing a server's URL in place drops it to needs_auth too.
    const put = await api("PUT", `/v1/sessions/${second.id}/servers/oauth`, remote(`${peers.oauth}?tenant=3`));
    expect(put.body.status).toBe("needs_auth");
  });

  it("sign out forgets the credentials: needs_auth here and in new sessions", async () => {
    const session = await createSession({ oauth: remote(peers.oauth) });
    expect((await signIn(session.id, "oauth")).status).toBe(200);
    const out = await api("DELETE", `/v1/sessions/${session.id}/servers/oauth/auth`);
    expect(out.status).toBe(200);
    expect(out.body.status).toBe("needs_auth");
    expect((await createSession({ oauth: remote(peers.oauth) })).servers.oauth!.status).toBe("needs_auth");
  });

  it("emits server.status connected on the session's event stream when sign-in completes", async () => {
    const session = await createSession({ oauth: remote(`${peers.oauth}?events=1`) });
    const controller = new AbortController();
    const stream = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${session.id}/events`, { signal: controller.signal }));
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await signIn(session.id, "oauth")).status).toBe(200);
    let text = "";
    while (!/"server":"oauth","status":"connected"/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    controller.abort();
    expect(text).toMatch(/event: server.status/);
    expect(text).toMatch(/"server":"oauth","status":"connected"/);
  });
});

describe("eviction", () => {
  it("a signed-in server comes back connected after the session object and the vault are evicted", async () => {
    const session = await createSession({ oauth: remote(`${peers.oauth}?evict=1`) });
    expect((await signIn(session.id, "oauth")).status).toBe(200);
    for (const stub of [env.SESSIONS.getByName(session.id), env.CREDENTIALS.getByName("local")]) {
      await runInDurableObject(stub as DurableObjectStub, (_instance, state) => state.abort("evicted by test")).catch(() => undefined);
    }
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "oauth_greet", arguments: { name: "back" } });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(await status(session.id, "oauth")).toMatchObject({ status: "connected" });
  });

  it("a pending flow survives eviction of the session object", async () => {
    const session = await createSession({ oauth: remote(`${peers.oauth}?evict=2`) });
    const callback = await authorize(session.id, "oauth");
    await runInDurableObject(env.SESSIONS.getByName(session.id) as DurableObjectStub, (_instance, state) => state.abort("evicted by test")).catch(() => undefined);
    expect((await page(callback.href)).status).toBe(200);
    expect(await status(session.id, "oauth")).toMatchObject({ status: "connected" });
  });
});

describe("the callback refuses what it did not start (CSRF) and changes nothing", () => {
  it("missing, malformed and forged states → 400; the real flow still completes afterwards", async () => {
    const session = await createSession({ oauth: remote(peers.oauth) });
    const callback = await authorize(session.id, "oauth");
    const code = callback.searchParams.get("code")!;
    const state = callback.searchParams.get("state")!;
    expect((await page(`http://mcp-edge.test/oauth/callback?code=${code}`)).status).toBe(400);
    expect((await page(`http://mcp-edge.test/oauth/callback?code=${code}&state=nonsense`)).status).toBe(400);
    const forgedNonce = `${session.id}.${"A".repeat(24)}`;
    expect((await page(`http://mcp-edge.test/oauth/callback?code=${code}&state=${forgedNonce}`)).status).toBe(400);
    // The nonce presented to another session of the same principal: unknown there, kept for its own.
    const other = await createSession({});
    const nonce = state.slice(state.indexOf(".") + 1);
    expect((await page(`http://mcp-edge.test/oauth/callback?code=${code}&state=${other.id}.${nonce}`)).status).toBe(400);
    expect(await status(session.id, "oauth")).toMatchObject({ status: "needs_auth" });
    expect((await page(callback.href)).status).toBe(200);
    expect(await status(session.id, "oauth")).toMatchObject({ status: "connected" });
  });

  it("a replayed state → 400", async () => {
    const session = await createSession({ oauth: remote(peers.oauth) });
    const callback = await authorize(session.id, "oauth");
    expect((await page(callback.href)).status).toBe(200);
    const replay = await page(callback.href);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain("already used");
  });

  it("an expired state (older than 10 minutes) → 400, and nothing is stored", async () => {
    const session = await createSession({ oauth: remote(`${peers.oauth}?expired=1`) });
    const callback = await authorize(session.id, "oauth");
    const state = callback.searchParams.get("state")!;
    const nonce = state.slice(state.indexOf(".") + 1);
    // Age the pending flow through the vault's own methods.
    await runInDurableObject(env.CREDENTIALS.getByName("local"), async (vault) => {
      const taken = await vault.takeFlow(nonce, session.id);
      if (!taken.ok) throw new Error("flow not found");
      const aged: PendingFlow = { ...taken.flow, createdAt: Date.now() - STATE_TTL_MS - 1000 };
      await vault.beginFlow(aged);
    });
    const expired = await page(callback.href);
    expect(expired.status).toBe(400);
    expect(expired.text).toContain("expired");
    expect(await status(session.id, "oauth")).toMatchObject({ status: "needs_auth" });
    expect((await api("POST", `/v1/sessions/${session.id}/servers/oauth/debug`)).body.credentials).toBe(false);
  });

  it("an authorization server error (access_denied) → 403, nothing stored", async () => {
    const session = await createSession({ oauth: remote(`${peers.oauth}?denied=1`) });
    const callback = await authorize(session.id, "oauth");
    const denied = await page(`http://mcp-edge.test/oauth/callback?error=access_denied&state=${callback.searchParams.get("state")}`);
    expect(denied.status).toBe(403);
    expect(await status(session.id, "oauth")).toMatchObject({ status: "needs_auth" });
  });
});

describe("pending, then commit", () => {
  it("a failed token exchange stores nothing and leaves the old credentials working", async () => {
    const url = `${peers.oauth}?exchange=1`;
    const session = await createSession({ oauth: remote(url) });
    // First a failed exchange with no credentials held: nothing appears.
    const bad = await authorize(session.id, "oauth");
    bad.searchParams.set("code", "not-a-code");
    const failed = await page(bad.href);
    expect(failed.status).toBe(502);
    expect(failed.text).toContain("token exchange");
    expect((await api("POST", `/v1/sessions/${session.id}/servers/oauth/debug`)).body.credentials).toBe(false);
    // Then a good sign-in, then another failed exchange: the good credentials stay.
    expect((await signIn(session.id, "oauth")).status).toBe(200);
    const again = await authorize(session.id, "oauth");
    again.searchParams.set("code", "not-a-code-either");
    expect((await page(again.href)).status).toBe(502);
    expect(await status(session.id, "oauth")).toMatchObject({ status: "connected" });
    expect((await createSession({ oauth: remote(url) })).servers.oauth!.status).toBe("connected");
  });
});

describe("OAuth routes refuse what they cannot do", () => {
  it("oauth:false, a local server and an unknown server are typed errors", async () => {
    const session = await createSession({ off: remote(peers.oauth, { oauth: false }), local: { type: "local", bridge: "b", server: "s" } });
    const off = await api("POST", `/v1/sessions/${session.id}/servers/off/auth`);
    expect(off.status).toBe(400);
    expect(off.body.error.message).toContain("oauth: false");
    expect((await api("POST", `/v1/sessions/${session.id}/servers/local/auth`)).status).toBe(400);
    expect((await api("POST", `/v1/sessions/${session.id}/servers/ghost/auth`)).status).toBe(404);
  });

  it("a server without dynamic registration and no configured client: 400 naming oauth.clientId", async () => {
    const noreg = peers.fixture.replace(/\/mcp$/, "/noreg/mcp");
    const session = await createSession({ noreg: remote(noreg) });
    const res = await api("POST", `/v1/sessions/${session.id}/servers/noreg/auth`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("oauth.clientId");
    expect(res.body.error.data.status).toBe("needs_client_registration");
  });

  it("debug reports status, WWW-Authenticate and discovery, and stores nothing", async () => {
    const session = await createSession({ oauth: remote(`${peers.oauth}?debug=1`) });
    const res = await api("POST", `/v1/sessions/${session.id}/servers/oauth/debug`);
    expect(res.status).toBe(200);
    expect(res.body.initialize.status).toBe(401);
    expect(res.body.initialize.wwwAuthenticate).toContain("resource_metadata");
    expect(res.body.discovery).toMatchObject({ dynamicRegistration: true, authorizationServerUrl: expect.any(String) });
    expect(res.body.credentials).toBe(false);
    expect(await status(session.id, "oauth")).toMatchObject({ status: "needs_auth" });
  });

  it("serves the client ID metadata document", async () => {
    const response = await exports.default.fetch(new Request("https://edge.example/oauth/client-metadata.json"));
    const doc = (await response.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ client_id: "https://edge.example/oauth/client-metadata.json", redirect_uris: ["https://edge.example/oauth/callback"] });
  });
});
