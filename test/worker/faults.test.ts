/**
 * Faults, each injected for real, observed, recovered from: the caller gets a clear typed
 * error within the configured bound, the session is consistent afterwards, and a retry
 * succeeds. The peers killed, paused and restarted here (`faultEverything`,
 * `faultFixture`) are copies no other test file uses.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSseParser, type SseEvent } from "../../src/core/sse-parser.js";
import { newSessionId } from "../../src/http/ids.js";
import { PRINCIPAL_HEADER, SESSION_ID_HEADER } from "../../durable-objects/session-routes.js";
import { eventually } from "../support/eventually.js";
import { api, createSession, peers, remote } from "./helpers.js";

const control = (action: "restart" | "stop" | "start" | "pause" | "resume", peer: "faultEverything" | "faultFixture") =>
  fetch(`${peers.control}/${action}/${peer}`, { method: "POST" }).then((r) => r.status);

/** Throws the session's object out of memory, keeping its storage (see lifecycle.test.ts). */
async function evictSession(id: string): Promise<void> {
  await runInDurableObject(env.SESSIONS.getByName(id), (_instance, state) => state.abort("evicted by test")).catch(() => undefined);
}

const toolNames = async (id: string) => ((await api("GET", `/v1/sessions/${id}/tools`)).body.tools as Array<{ name: string }>).map((t) => t.name);
const call = (id: string, name: string, args: Record<string, unknown> = {}) => api("POST", `/v1/sessions/${id}/tools/call`, { name, arguments: args });

/** The session's event stream, read in the background into `seen` until closed or ended. */
async function openEvents(id: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${id}/events`, { headers, signal: controller.signal }));
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const seen: SseEvent[] = [];
  let ended = false;
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        seen.push(...parser.push(decoder.decode(value, { stream: true })));
      }
    } catch {
      // the stream broke (an eviction); `ended` says so
    }
    ended = true;
  })();
  return {
    seen,
    get ended() {
      return ended;
    },
    async close() {
      controller.abort();
      await reader.cancel().catch(() => undefined);
      await pump;
    },
  };
}

// A test that fails half-way must not leave a peer paused or stopped for the next one.
afterEach(async () => {
  for (const peer of ["faultEverything", "faultFixture"] as const) {
    expect(await control("resume", peer)).toBe(200);
  }
});

describe("upstream faults", () => {
  // Regression (a killed upstream was noticed only at the request timeout): the SDK transport
  // tried to resume the broken response stream, gave up, and left the call waiting. Now the
  // last failed resumption fails the call (the SDK's 2 retries, about 2.5 s), far inside a 20 s timeout.
  it("an upstream killed mid-call and restarted: the in-flight call fails with a typed 502 once the stream cannot be resumed, the next call succeeds, the catalog is intact", async () => {
    const session = await createSession({ everything: remote(peers.faultEverything, { timeout: { request: 20_000 } }) });
    const before = await toolNames(session.id);
    const events = await openEvents(session.id);
    try {
      const pending = call(session.id, "everything_trigger-long-running-operation", { duration: 30, steps: 30 });
      // The call is upstream once its first progress arrives.
      await eventually(async () => events.seen.map((e) => e.event), (types) => types.includes("tool.progress"));
      expect(await control("restart", "faultEverything")).toBe(200);
      const failed = await pending;
      expect(failed.status).toBe(502);
      expect(failed.body.error).toMatchObject({ code: "serverUnavailable", data: { server: "everything" } });
    } finally {
      await events.close();
    }
    const retry = await call(session.id, "everything_echo", { message: "after restart" });
    expect(retry.status).toBe(200);
    expect(retry.body.output).toBe("Echo: after restart");
    expect(await toolNames(session.id)).toEqual(before);
    expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.everything.status).toBe("connected");
  });

  it("an upstream that answers 404 on its session (it restarted and forgot it) is re-initialized and the call goes through", async () => {
    const session = await createSession({ fixture: remote(peers.faultFixture) });
    const before = await toolNames(session.id);
    expect((await call(session.id, "fixture_initialize_count")).status).toBe(200);
    expect(await control("restart", "faultFixture")).toBe(200);
    // The fixture answers 404 to the old Mcp-Session-Id; the call re-initializes once and is retried.
    const after = await call(session.id, "fixture_initialize_count");
    expect(after.status).toBe(200);
    expect(after.body.output).toBe("1");
    expect(await toolNames(session.id)).toEqual(before);
    expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.fixture.status).toBe("connected");
  });

  it("an upstream that hangs (SIGSTOP, no bytes) times out at the server's timeout; after it resumes the session works", async () => {
    const session = await createSession({ fixture: remote(peers.faultFixture, { timeout: { request: 1000 } }) });
    const before = await toolNames(session.id);
    expect(await control("pause", "faultFixture")).toBe(200);
    const hung = await call(session.id, "fixture_cancelled_count");
    expect(hung.status).toBe(504);
    expect(hung.body.error.code).toBe("timeout");
    expect(hung.body.error.message).toMatch(/1000 ms|timed out/i);
    expect(await control("resume", "faultFixture")).toBe(200);
    const retry = await call(session.id, "fixture_cancelled_count");
    expect(retry.status).toBe(200);
    expect(await toolNames(session.id)).toEqual(before);
  });
});

/** What each misbehaviour of /bad/mcp comes back as, all at once (the timeout is 20 s). */
const EXPECTED_BAD = {
  not_json: { status: 502, code: "serverUnavailable" },
  not_jsonrpc: { status: 502, code: "serverUnavailable" },
  bad_result: { status: 502, code: "serverUnavailable" },
  // Regression (a response stream closed before its answer left the call waiting for its timeout).
  cut_stream: { status: 502, code: "serverUnavailable" },
} as const;

describe("bad upstream behaviour", () => {
  const bad = () => peers.fixture.replace(/\/mcp$/, "/bad/mcp");

  it.each([
    ["not_json", "a body that is not JSON"],
    ["not_jsonrpc", "JSON that is not a JSON-RPC response"],
    ["bad_result", "a result that is not a tool result"],
    ["cut_stream", "an SSE stream closed before the answer"],
  ])("%s (%s): a typed error within the timeout; the session stays usable", async (tool) => {
    const session = await createSession({ fixture: remote(bad(), { timeout: { request: 20_000 } }) });
    const failed = await call(session.id, `fixture_${tool}`);
    expect({ tool, status: failed.status, code: failed.body.error?.code }).toEqual({ tool, ...EXPECTED_BAD[tool as keyof typeof EXPECTED_BAD] });
    expect(failed.body.error.message).toEqual(expect.any(String));
    const retry = await call(session.id, "fixture_cancelled_count");
    expect(retry.status).toBe(200);
    expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.fixture.status).toBe("connected");
  });

  it("a server listing 5,000 tools: listed, searchable and callable", async () => {
    const session = await createSession({ huge: remote(peers.fixture.replace(/\/mcp$/, "/huge/mcp")) });
    expect(session.servers.huge).toMatchObject({ status: "connected" });
    expect(session.servers.huge!.tools).toBeGreaterThanOrEqual(5000);
    const names = await toolNames(session.id);
    expect(names.filter((n) => n.startsWith("huge_bulk_"))).toHaveLength(5000);
    expect(new Set(names).size).toBe(names.length);
    const search = await api("POST", `/v1/sessions/${session.id}/tools/search`, { query: "bulk tool number 4321", limit: 5 });
    expect(search.status).toBe(200);
    expect(search.body.results.length).toBeGreaterThan(0);
    const result = await call(session.id, "huge_bulk_4999");
    expect(result.status).toBe(200);
    expect(result.body.output).toBe("I am bulk_4999");
  });
});

describe("Durable Object eviction", () => {
  // Regression (an eviction mid-call was an opaque 500 "internal error"): the caller now gets a
  // typed 503 that says the state is kept and a retry works.
  it("in the middle of a long tool call: the caller gets a typed 503, the session comes back and a retry succeeds", async () => {
    const session = await createSession({ fixture: remote(peers.faultFixture) });
    const events = await openEvents(session.id);
    const pending = call(session.id, "fixture_slow", { ms: 5000 });
    await eventually(async () => events.seen.map((e) => e.event), (types) => types.includes("tool.started"));
    await evictSession(session.id);
    const failed = await pending;
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatchObject({ code: "sessionUnavailable", message: expect.stringContaining("retry") });
    await events.close();
    const retry = await call(session.id, "fixture_slow", { ms: 10 });
    expect(retry.status).toBe(200);
    expect(retry.body.output).toBe("slept");
  });

  // Regression (event ids restart after eviction): the new object numbered its events from 1, so
  // a subscriber resuming with Last-Event-ID N skipped every new event up to N, silently.
  it("in the middle of an event subscription: the subscriber reconnects with Last-Event-ID and gets the rest", async () => {
    const session = await createSession({ fixture: remote(peers.faultFixture) });
    const first = await openEvents(session.id);
    expect((await call(session.id, "fixture_cancelled_count")).status).toBe(200);
    await eventually(async () => first.seen.map((e) => e.event), (types) => types.includes("tool.finished"));
    await evictSession(session.id);
    // The stream ends with the object.
    await eventually(async () => first.ended, (ended) => ended);
    const lastId = first.seen.at(-1)!.id!;

    expect((await call(session.id, "fixture_initialize_count")).status).toBe(200);
    const again = await openEvents(session.id, { "Last-Event-ID": lastId });
    try {
      await eventually(async () => again.seen.filter((e) => e.event === "tool.finished").map((e) => JSON.parse(e.data).name), (names) => names.includes("fixture_initialize_count"));
      expect(again.seen.every((e) => Number(e.id) > Number(lastId))).toBe(true);
      // Regression (call ids were a per-instance counter): the call after the eviction is not mistaken for the one before.
      const callIds = [...first.seen, ...again.seen].filter((e) => e.event === "tool.started").map((e) => JSON.parse(e.data).callId);
      expect(callIds).toHaveLength(2);
      expect(new Set(callIds).size).toBe(2);
    } finally {
      await again.close();
    }
  });

  it("events emitted while the subscriber was away and then lost with the evicted object show as a gap covering them", async () => {
    const session = await createSession({ fixture: remote(peers.faultFixture) });
    const first = await openEvents(session.id);
    await eventually(async () => first.seen.length, (n) => n > 0);
    await first.close();
    const lastId = Number(first.seen.at(-1)!.id);
    // Two events (started, finished) nobody reads; the eviction drops them from memory.
    expect((await call(session.id, "fixture_cancelled_count")).status).toBe(200);
    await evictSession(session.id);
    const again = await openEvents(session.id, { "Last-Event-ID": String(lastId) });
    try {
      await eventually(async () => again.seen.length, (n) => n > 0);
      // Ids are reserved in blocks, so the gap covers the two lost events and the ids skipped after them.
      const gap = again.seen[0]!;
      expect(gap.event).toBe("gap");
      expect(Number(gap.id)).toBeGreaterThanOrEqual(lastId + 2);
      expect(JSON.parse(gap.data).missed).toBe(Number(gap.id) - lastId);
      expect((await call(session.id, "fixture_initialize_count")).status).toBe(200);
      await eventually(async () => again.seen.map((e) => e.event), (types) => types.includes("tool.finished"));
      expect(again.seen.slice(1).every((e) => Number(e.id) > Number(gap.id))).toBe(true);
    } finally {
      await again.close();
    }
  });
});

/** A KV binding that is down: every operation rejects. */
const downKv = (): KVNamespace => {
  const fail = () => Promise.reject(new Error("KV unavailable (injected)"));
  return { get: fail, getWithMetadata: fail, put: fail, list: fail, delete: fail } as unknown as KVNamespace;
};

/** A KV binding that never answers. */
const hungKv = (): KVNamespace => {
  const hang = () => new Promise<never>(() => undefined);
  return { get: hang, getWithMetadata: hang, put: hang, list: hang, delete: hang } as unknown as KVNamespace;
};

/**
 * Replaces the CATALOG binding of the session object that `id` names, for this instance of
 * it: the fault sits at the binding edge, our code runs unchanged.
 */
async function breakCatalogBinding(id: string, kv: () => KVNamespace): Promise<void> {
  await runInDurableObject(env.SESSIONS.getByName(id), (instance) => {
    (instance as unknown as { env: { CATALOG: KVNamespace } }).env.CATALOG = kv();
  });
}

describe("KV unavailable or slow (the catalog cache is an optimisation, never a dependency)", () => {
  it.each([
    ["down", downKv],
    ["hung", hungKv],
  ] as const)("KV %s: a session connects, lists, searches and calls tools, before and after an eviction, with a warning logged", async (_label, kv) => {
    const warn = vi.spyOn(console, "warn");
    try {
      // The object must carry the broken binding before the session exists, so the id is minted here.
      const id = newSessionId();
      await breakCatalogBinding(id, kv);
      const created = await env.SESSIONS.getByName(id).fetch(
        new Request("https://session/", { method: "POST", headers: { "content-type": "application/json", [SESSION_ID_HEADER]: id, [PRINCIPAL_HEADER]: "local" }, body: JSON.stringify({ servers: { fixture: remote(peers.faultFixture) } }) }),
      );
      expect(created.status).toBe(201);
      const before = await toolNames(id);
      expect(before).toContain("fixture_slow");
      expect((await call(id, "fixture_cancelled_count")).status).toBe(200);
      const search = await api("POST", `/v1/sessions/${id}/tools/search`, { query: "cancelled calls" });
      expect(search.status).toBe(200);
      expect(search.body.results.map((r: { name: string }) => r.name)).toContain("fixture_cancelled_count");
      await eventually(async () => warn.mock.calls.map((c) => String(c[0])), (lines) => lines.some((l) => l.includes("catalog cache write failed")));

      await evictSession(id);
      await breakCatalogBinding(id, kv);
      // The restore would read the catalog from KV; it cannot, so the listing waits for the server.
      expect(await toolNames(id)).toEqual(before);
      expect((await call(id, "fixture_cancelled_count")).status).toBe(200);
      expect(warn.mock.calls.map((c) => String(c[0]))).toContainEqual(expect.stringContaining("catalog cache read failed"));
    } finally {
      warn.mockRestore();
    }
  });
});
