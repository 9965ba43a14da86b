import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createSession, peers, remote } from "./helpers.js";
import { eventually } from "../support/eventually.js";


/**
 * Throws the session's object out of memory, keeping its storage. (The graceful
 * evictDurableObject() waits for in-flight I/O to drain, and a live session always has
 * some: the upstream GET streams. ctx.abort() is the harsher, faster eviction.)
 */
async function evictSession(id: string): Promise<void> {
  const stub = env.SESSIONS.getByName(id);
  await runInDurableObject(stub, (_instance, state) => state.abort("evicted by test")).catch(() => undefined);
}

const toolNames = async (id: string) => ((await api("GET", `/v1/sessions/${id}/tools`)).body.tools as Array<{ name: string }>).map((t) => t.name);

describe("transports", () => {
  it("falls back to SSE when the endpoint is not Streamable HTTP", async () => {
    const session = await createSession({ legacy: remote(peers.everythingSse) });
    expect(session.servers.legacy).toMatchObject({ status: "connected" });
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "legacy_echo", arguments: { message: "over sse" } });
    expect(call.body.output).toBe("Echo: over sse");
  });
});

describe("timeouts and progress", () => {
  it("progress resets the request timeout (trigger-long-running-operation outlives a 1.5 s timeout)", async () => {
    const session = await createSession({ everything: remote(peers.everything, { timeout: { request: 1500 } }) });
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, {
      name: "everything_trigger-long-running-operation",
      arguments: { duration: 3, steps: 6 },
    });
    expect(call.status).toBe(200);
    expect(call.body.output).toContain("Long running operation completed");
  });

  it("without progress the same timeout ends the call with 504", async () => {
    const session = await createSession({ fixture: remote(peers.fixture, { timeout: { request: 500 } }) });
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_slow", arguments: { ms: 3000 } });
    expect(call.status).toBe(504);
    expect(call.body.error.code).toBe("timeout");
  });

  it("a caller that goes away cancels the upstream call (notifications/cancelled)", async () => {
    const session = await createSession({ fixture: remote(peers.fixture) });
    const count = async () => Number((await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_cancelled_count" })).body.output);
    const before = await count();
    const controller = new AbortController();
    const pending = api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_slow", arguments: { ms: 20_000 } }, { signal: controller.signal });
    await scheduler.wait(300);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await eventually(count, (n) => n > before);
  });
});

describe("upstream restarts and list_changed", () => {
  it("a server restart in the middle of a session is re-initialized transparently", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const echo = () => api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "again" } });
    expect((await echo()).body.output).toBe("Echo: again");
    const restarted = await fetch(`${peers.control}/restart/everything`, { method: "POST" });
    expect(restarted.status).toBe(200);
    const after = await echo();
    expect(after.status).toBe(200);
    expect(after.body.output).toBe("Echo: again");
    expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.everything.status).toBe("connected");
  });

  it("a server that is down answers 502 and fails; it recovers on the next call once back", async () => {
    const session = await createSession({ fixture: remote(peers.fixture) });
    const stopped = await fetch(`${peers.control}/stop/fixture`, { method: "POST" });
    expect(stopped.status).toBe(200);
    try {
      const down = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_cancelled_count" });
      expect(down.status).toBe(502);
      expect(down.body.error.code).toBe("serverUnavailable");
      expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.fixture.status).toBe("failed");
    } finally {
      expect((await fetch(`${peers.control}/start/fixture`, { method: "POST" })).status).toBe(200);
    }
    const back = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_cancelled_count" });
    expect(back.status).toBe(200);
  });

  it("notifications/tools/list_changed refetches the tools", async () => {
    const session = await createSession({ fixture: remote(peers.fixture) });
    expect(await toolNames(session.id)).not.toContain("fixture_fresh_tool");
    const added = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_add_tool", arguments: { name: "fresh_tool" } });
    expect(added.status).toBe(200);
    await eventually(() => toolNames(session.id), (names) => names.includes("fixture_fresh_tool"));
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_fresh_tool" });
    expect(call.body.output).toBe("I am fresh_tool");
  });
});

describe("eviction and restore", () => {
  it("after eviction the session, its statuses and tools come back, calls work, and the GET stream reopens", async () => {
    const session = await createSession(
      { fixture: remote(peers.fixture), off: remote(peers.everything, { enabled: false }), auth: remote(peers.oauth), down: remote(peers.refused) },
      { roots: ["file:///r"] },
    );
    const before = await toolNames(session.id);
    await evictSession(session.id);

    const status = await api("GET", `/v1/sessions/${session.id}`);
    expect(status.body.servers).toMatchObject({
      fixture: { status: "connected" },
      off: { status: "disabled" },
      auth: { status: "needs_auth", error: expect.any(String) },
      down: { status: "failed", error: session.servers.down!.error },
    });
    expect(await toolNames(session.id)).toEqual(before);
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_add_tool", arguments: { name: "after_eviction" } });
    expect(call.status).toBe(200);
    // list_changed travels on the standalone GET stream: it only arrives if that reopened.
    await eventually(() => toolNames(session.id), (names) => names.includes("fixture_after_eviction"));
  });

  it("after eviction the upstream session is resumed without a new initialize when it can be", async () => {
    const nostream = peers.fixture.replace(/\/mcp$/, "/nostream/mcp");
    const session = await createSession({ fixture: remote(nostream) });
    const inits = async () => Number((await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_initialize_count" })).body.output);
    const before = await inits();
    await evictSession(session.id);
    expect(await inits()).toBe(before);
  });

  it("after eviction, while a hung server reconnects, its tools come from the KV catalog cache", async () => {
    const session = await createSession({ fixture: remote(peers.fixture, { timeout: { startup: 8000 } }) });
    const before = await toolNames(session.id);
    expect((await env.CATALOG.list({ prefix: "catalog:v1:" })).keys.length).toBeGreaterThan(0);
    expect((await fetch(`${peers.control}/pause/fixture`, { method: "POST" })).status).toBe(200);
    try {
      await evictSession(session.id);
      // The restore is stuck on the paused server, yet the catalog is there at once.
      expect(await toolNames(session.id)).toEqual(before);
    } finally {
      expect((await fetch(`${peers.control}/resume/fixture`, { method: "POST" })).status).toBe(200);
    }
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_cancelled_count" });
    expect(call.status).toBe(200);
  });

  it("DELETE cancels in-flight calls and forgets the session", async () => {
    const session = await createSession({ fixture: remote(peers.fixture) });
    const pending = api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "fixture_slow", arguments: { ms: 20_000 } });
    await scheduler.wait(200);
    expect((await api("DELETE", `/v1/sessions/${session.id}`)).status).toBe(204);
    const result = await pending;
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect((await api("GET", `/v1/sessions/${session.id}`)).status).toBe(404);
  });
});
