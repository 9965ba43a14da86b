/**
 * Token refresh against a real OAuth server that issues 2-second access tokens with
 * rotating refresh tokens (test/fixtures/oauth-refresh-server.mjs, built from the MCP
 * SDK's server-side OAuth): refreshed before expiry, once for all sessions of the
 * principal, and `invalid_grant` or a refused token ends in needs_auth without a loop.
 * The tests wait on the tokens' own lifetime with eventually(), never a fixed sleep.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { api, createSession, peers, remote } from "./helpers.js";

interface Stats {
  issued: number;
  refreshes: number;
  refused: number;
}

const control = peers.oauthRefresh.replace(/\/mcp$/, "");
const stats = async (): Promise<Stats> => (await fetch(`${control}/stats`)).json();

async function signIn(sessionId: string, server: string): Promise<void> {
  const started = await api("POST", `/v1/sessions/${sessionId}/servers/${server}/auth`);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const authorize = await fetch(started.body.authorizationUrl, { redirect: "manual" });
  expect(authorize.status).toBe(302);
  const callback = await exports.default.fetch(new Request(authorize.headers.get("location")!));
  expect(callback.status, await callback.text()).toBe(200);
}

const whoami = (sessionId: string) => api("POST", `/v1/sessions/${sessionId}/tools/call`, { name: "rt_whoami", arguments: {} });

describe("refresh", () => {
  it("refreshes before expiry and keeps calling", async () => {
    const session = await createSession({ rt: remote(`${peers.oauthRefresh}?case=refresh`) });
    expect(session.servers.rt!.status).toBe("needs_auth");
    await signIn(session.id, "rt");
    const before = await stats();
    const after = await eventually(
      async () => ({ call: await whoami(session.id), stats: await stats() }),
      (v) => v.call.status !== 200 || v.stats.refreshes > before.refreshes,
    );
    expect(after.call.status).toBe(200);
    expect(after.call.body.output).toContain("client");
    expect(after.stats.refused).toBe(before.refused);
    expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.rt.status).toBe("connected");
  });

  it("sessions of one principal calling at once refresh once per expiry (a race would burn the rotating refresh token)", async () => {
    const url = `${peers.oauthRefresh}?case=race`;
    const a = await createSession({ rt: remote(url) });
    await signIn(a.id, "rt");
    const b = await createSession({ rt: remote(url) });
    const c = await createSession({ rt: remote(url) });
    expect(b.servers.rt!.status).toBe("connected");
    expect(c.servers.rt!.status).toBe("connected");
    const before = await stats();
    // Until two refreshes happened, every round calls from all three sessions at once.
    const after = await eventually(
      async () => {
        const calls = await Promise.all([whoami(a.id), whoami(b.id), whoami(c.id)]);
        return { statuses: calls.map((r) => r.status), stats: await stats() };
      },
      (v) => v.statuses.some((s) => s !== 200) || v.stats.refreshes >= before.refreshes + 2,
      15_000,
    );
    expect(after.statuses).toEqual([200, 200, 200]);
    expect(after.stats.refused).toBe(before.refused);
  });

  it("invalid_grant drops the tokens: needs_auth, one refresh attempt, no retry loop", async () => {
    const session = await createSession({ rt: remote(`${peers.oauthRefresh}?case=revoked`) });
    await signIn(session.id, "rt");
    expect((await whoami(session.id)).status).toBe(200);
    await fetch(`${control}/revoke-refresh`, { method: "POST" });
    const before = await stats();
    const failed = await eventually(() => whoami(session.id), (r) => r.status !== 200);
    expect(failed.status).toBe(502);
    expect(failed.body.error.data.status).toBe("needs_auth");
    expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.rt.status).toBe("needs_auth");
    // Further calls do not try again.
    expect((await whoami(session.id)).status).toBe(502);
    expect((await api("POST", `/v1/sessions/${session.id}/servers/rt/connect`)).body.status).toBe("needs_auth");
    expect((await stats()).refused - before.refused).toBe(1);
    // Signing in again works.
    await signIn(session.id, "rt");
    expect((await whoami(session.id)).status).toBe(200);
  });

  it("clock skew: a token the server already counts as expired (our clock says it is good for an hour) is refreshed once and the call goes through", async () => {
    const skewControl = peers.oauthSkew.replace(/\/mcp$/, "");
    const skewStats = async (): Promise<Stats> => (await fetch(`${skewControl}/stats`)).json();
    const session = await createSession({ rt: remote(`${peers.oauthSkew}?case=skew`) });
    await signIn(session.id, "rt");
    expect((await whoami(session.id)).status).toBe(200);
    const before = await skewStats();
    await fetch(`${skewControl}/expire-access`, { method: "POST" });
    const call = await whoami(session.id);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const after = await skewStats();
    expect(after.refreshes - before.refreshes).toBe(1);
    expect(after.refused).toBe(before.refused);
    expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.rt.status).toBe("connected");
  });

  // Last: the fixture refuses every access token from here on.
  it("a token the server keeps refusing: needs_auth, at most one refresh, no storm", async () => {
    const session = await createSession({ rt: remote(`${peers.oauthRefresh}?case=refused`) });
    await signIn(session.id, "rt");
    expect((await whoami(session.id)).status).toBe(200);
    const before = await stats();
    await fetch(`${control}/reject-access`, { method: "POST" });
    const failed = await whoami(session.id);
    expect(failed.status).toBe(502);
    expect(failed.body.error.data.status).toBe("needs_auth");
    for (let i = 0; i < 3; i++) expect((await whoami(session.id)).status).toBe(502);
    const after = await stats();
    expect(after.refreshes - before.refreshes).toBeLessThanOrEqual(1);
    expect(after.issued - before.issued).toBeLessThanOrEqual(1);
  });
});
