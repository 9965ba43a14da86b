import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_EVENT_SUBSCRIBERS, MAX_REQUEST_BODY_BYTES, MAX_REQUEST_NESTING, MAX_SEARCH_QUERY_CHARS, MAX_TOOL_RESULT_CHARS } from "../../src/core/limits.js";
import { eventually } from "../support/eventually.js";
import { api, createSession, peers, remote } from "./helpers.js";

function expectError(res: { status: number; body: any }, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
  if (code) expect(res.body.error.code).toBe(code);
}

describe("bad session bodies are 400s that say why", () => {
  it("malformed JSON", async () => {
    expectError(await api("POST", "/v1/sessions", "{not json"), 400, "badRequest");
  });

  it("a body that is not an object", async () => {
    expectError(await api("POST", "/v1/sessions", "[]"), 400);
    expectError(await api("POST", "/v1/sessions", '"hello"'), 400);
  });

  it("unknown top-level keys are named", async () => {
    const res = await api("POST", "/v1/sessions", { servers: {}, sever: {} });
    expectError(res, 400, "unknownKeys");
    expect(res.body.error.message).toContain("sever");
  });

  it("unknown server keys are named", async () => {
    const res = await api("POST", "/v1/sessions", { servers: { s: { type: "remote", url: peers.everything, bogus: 1, other: 2 } } });
    expectError(res, 400, "unknownKeys");
    expect(res.body.error.data.unknownKeys).toEqual(["bogus", "other"]);
    expect(res.body.error.message).toContain('"s"');
  });

  it.each([
    ["an unknown type", { type: "carrier-pigeon", url: "http://x" }],
    ["a non-http scheme", { type: "remote", url: "ftp://example.com/mcp" }],
    ["a URL that is not one", { type: "remote", url: "not a url" }],
    ["credentials in the URL", { type: "remote", url: "http://user:pw@127.0.0.1/mcp" }],
    ["headers that are not strings", { type: "remote", url: "http://127.0.0.1/mcp", headers: { a: 1 } }],
    ["a negative timeout", { type: "remote", url: "http://127.0.0.1/mcp", timeout: -5 }],
    ["an unknown timeout key", { type: "remote", url: "http://127.0.0.1/mcp", timeout: { connect: 5 } }],
    ["a bad sampling policy", { type: "remote", url: "http://127.0.0.1/mcp", sampling: "sometimes" }],
    ["a remote server without url", { type: "remote" }],
    ["a config that is not an object", "http://127.0.0.1/mcp"],
  ])("%s", async (_label, config) => {
    const res = await api("POST", "/v1/sessions", { servers: { s: config } });
    expectError(res, 400);
    expect(res.body.error.message).toContain('"s"');
  });

  it("roots must be URIs and server names must not contain '/'", async () => {
    expectError(await api("POST", "/v1/sessions", { roots: ["not a uri"] }), 400);
    expectError(await api("POST", "/v1/sessions", { servers: { "a/b": remote(peers.everything) } }), 400);
  });
});

describe("bad requests on a session", () => {
  let id: string;
  beforeAll(async () => {
    id = (await createSession({ everything: remote(peers.everything) })).id;
  });

  it("unknown or malformed session ids are 404", async () => {
    expectError(await api("GET", "/v1/sessions/ses_0000000000000000000000000z"), 404, "sessionNotFound");
    expectError(await api("GET", "/v1/sessions/../../etc"), 404);
    expectError(await api("GET", "/v1/sessions/nope/tools"), 404, "sessionNotFound");
    expectError(await api("POST", "/v1/sessions/ses_0000000000000000000000000z/tools/call", { name: "x" }), 404, "sessionNotFound");
  });

  it("unknown routes are JSON 404s", async () => {
    expectError(await api("GET", "/nope"), 404, "notFound");
    expectError(await api("GET", `/v1/sessions/${id}/nope`), 404, "notFound");
  });

  it("tools/call validates its body", async () => {
    const path = `/v1/sessions/${id}/tools/call`;
    expectError(await api("POST", path, {}), 400);
    expectError(await api("POST", path, { name: "" }), 400);
    expectError(await api("POST", path, { name: "everything_echo", arguments: [1, 2] }), 400);
    expectError(await api("POST", path, { name: "everything_echo", arguments: { message: "x" }, extra: true }), 400, "unknownKeys");
    expectError(await api("POST", path, "garbage"), 400, "badRequest");
    expectError(await api("POST", path), 400, "badRequest");
  });

  it("an unknown tool is 404 naming it", async () => {
    const res = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_nope" });
    expectError(res, 404, "toolNotFound");
    expect(res.body.error.message).toContain("everything_nope");
  });

  it("arguments the server rejects come back as a tool error or upstream error, never a crash", async () => {
    const res = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_echo", arguments: { message: 42 } });
    expect([200, 502]).toContain(res.status);
    if (res.status === 200) expect(res.body.isError).toBe(true);
  });

  it("a bad PUT is a 400 and leaves the existing server untouched", async () => {
    expectError(await api("PUT", `/v1/sessions/${id}/servers/everything`, { type: "remote", url: "ftp://x" }), 400);
    const status = await api("GET", `/v1/sessions/${id}`);
    expect(status.body.servers.everything.status).toBe("connected");
    const call = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_echo", arguments: { message: "still here" } });
    expect(call.body.output).toBe("Echo: still here");
  });

  it("server operations on an unknown server are 404", async () => {
    expectError(await api("POST", `/v1/sessions/${id}/servers/ghost/connect`), 404, "serverNotFound");
    expectError(await api("POST", `/v1/sessions/${id}/servers/ghost/disconnect`), 404, "serverNotFound");
    expectError(await api("DELETE", `/v1/sessions/${id}/servers/ghost`), 404, "serverNotFound");
    expectError(await api("POST", `/v1/sessions/${id}/resources/read`, { server: "ghost", uri: "x://y" }), 404, "serverNotFound");
    expectError(await api("POST", `/v1/sessions/${id}/prompts/get`, { server: "ghost", name: "p" }), 404, "serverNotFound");
  });

  it("resources/read and prompts/get validate their bodies", async () => {
    expectError(await api("POST", `/v1/sessions/${id}/resources/read`, { server: "everything" }), 400);
    expectError(await api("POST", `/v1/sessions/${id}/prompts/get`, { server: "everything", name: "p", arguments: { a: 1 } }), 400);
  });

  it("an upstream error on resources/read is a 502 with the cause", async () => {
    const res = await api("POST", `/v1/sessions/${id}/resources/read`, { server: "everything", uri: "nope://missing" });
    expectError(res, 502, "upstreamError");
  });
});

describe("limits: each cap answers a typed error, and the session keeps working", () => {
  let id: string;
  beforeAll(async () => {
    id = (await createSession({ everything: remote(peers.everything), fixture: remote(peers.fixture) })).id;
  });

  const echo = (message: string) => ({ name: "everything_echo", arguments: { message } });

  it(`a body over MAX_REQUEST_BODY_BYTES (${MAX_REQUEST_BODY_BYTES}) is a 413 payloadTooLarge, by Content-Length`, async () => {
    const big = JSON.stringify(echo("x".repeat(MAX_REQUEST_BODY_BYTES)));
    expectError(await api("POST", `/v1/sessions/${id}/tools/call`, big), 413, "payloadTooLarge");
    expectError(await api("POST", "/v1/sessions", JSON.stringify({ servers: { s: remote(peers.everything, { headers: { h: "x".repeat(MAX_REQUEST_BODY_BYTES) } }) } })), 413, "payloadTooLarge");
    expectError(await api("PUT", `/v1/sessions/${id}/servers/s`, JSON.stringify(remote(peers.everything, { headers: { h: "x".repeat(MAX_REQUEST_BODY_BYTES) } }))), 413, "payloadTooLarge");
  });

  it("a streamed body (no Content-Length) is cut off once it passes the cap: 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(256 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":"everything_echo","arguments":{"message":"'));
      },
      pull(controller) {
        // Up to twice the cap; the reader must stop long before the end.
        if (sent > 2 * MAX_REQUEST_BODY_BYTES) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await api("POST", `/v1/sessions/${id}/tools/call`, undefined, { body, headers: { "content-type": "application/json" } });
    expectError(res, 413, "payloadTooLarge");
  });

  it("a body just under the cap is accepted (the tool sees the whole argument)", async () => {
    // The fixture, not server-everything: its HTTP adapter refuses bodies over 4 MiB itself.
    const text = "y".repeat(MAX_REQUEST_BODY_BYTES - 200);
    const res = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "fixture_text_length", arguments: { text } });
    expect(res.status).toBe(200);
    expect(res.body.output).toBe(String(text.length));
  });

  it(`tool arguments nested deeper than MAX_REQUEST_NESTING (${MAX_REQUEST_NESTING}) are a 400; at the cap they pass`, async () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const res = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_echo", arguments: { message: "m", deep } });
    expectError(res, 400, "badRequest");
    expect(res.body.error.message).toContain(`deeper than ${MAX_REQUEST_NESTING}`);
    let ok: unknown = "leaf";
    for (let i = 0; i < MAX_REQUEST_NESTING - 3; i++) ok = [ok];
    const fine = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "fixture_turn_probe", arguments: { deep: ok } });
    expect(fine.status).toBe(200);
  });

  it(`a search query over MAX_SEARCH_QUERY_CHARS (${MAX_SEARCH_QUERY_CHARS}) is a 400 on the API and a tool error through search_tools`, async () => {
    const long = "find a file ".repeat(Math.ceil(MAX_SEARCH_QUERY_CHARS / 12) + 1);
    expectError(await api("POST", `/v1/sessions/${id}/tools/search`, { query: long }), 400, "badRequest");
    const meta = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "search_tools", arguments: { query: long } });
    expect(meta.status).toBe(200);
    expect(meta.body.isError).toBe(true);
    expect(meta.body.output).toContain(`over ${MAX_SEARCH_QUERY_CHARS} characters`);
    const fine = await api("POST", `/v1/sessions/${id}/tools/search`, { query: "echo a message back" });
    expect(fine.status).toBe(200);
    expect(fine.body.results.length).toBeGreaterThan(0);
  });

  it(`a tool result over MAX_TOOL_RESULT_CHARS (${MAX_TOOL_RESULT_CHARS}) is a 502 resultTooLarge; a 1 MB one passes`, async () => {
    const res = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "fixture_big_text", arguments: { chars: MAX_TOOL_RESULT_CHARS + 1 } });
    expectError(res, 502, "resultTooLarge");
    expect(res.body.error.data).toMatchObject({ size: MAX_TOOL_RESULT_CHARS + 1, limit: MAX_TOOL_RESULT_CHARS });
    const fine = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "fixture_big_text", arguments: { chars: 1_000_000 } });
    expect(fine.status).toBe(200);
    expect(fine.body.output.length).toBe(1_000_000);
  });

  it(`event subscribers past MAX_EVENT_SUBSCRIBERS (${MAX_EVENT_SUBSCRIBERS}) get a 429; closing one frees a place`, async () => {
    const session = await createSession({});
    const open = async () => {
      const controller = new AbortController();
      const response = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${session.id}/events`, { signal: controller.signal }));
      return { response, controller };
    };
    const streams = [];
    for (let i = 0; i < MAX_EVENT_SUBSCRIBERS; i++) {
      const stream = await open();
      expect(stream.response.status).toBe(200);
      streams.push(stream);
    }
    const refused = await open();
    expect(refused.response.status).toBe(429);
    expect(await refused.response.json()).toMatchObject({ error: { code: "tooManySubscribers" } });
    streams[0]!.controller.abort();
    await streams[0]!.response.body?.cancel().catch(() => undefined);
    streams.push(await eventually(open, (again) => again.response.status === 200));
    for (const stream of streams) {
      stream.controller.abort();
      await stream.response.body?.cancel().catch(() => undefined);
    }
  });

  it("after all of that the session still answers", async () => {
    const res = await api("POST", `/v1/sessions/${id}/tools/call`, echo("still fine"));
    expect(res.body.output).toBe("Echo: still fine");
  });
});

describe("server names that would misbehave as object keys", () => {
  it("regression: PUT /servers/__proto__ is a 400 (as a plain-object key it replaced the prototype of the status and persisted server maps)", async () => {
    const { id } = await createSession({});
    const res = await api("PUT", `/v1/sessions/${id}/servers/__proto__`, remote(peers.everything));
    expectError(res, 400, "invalidConfig");
    expect(res.body.error.message).toContain("__proto__");
    expectError(await api("PUT", `/v1/sessions/${id}/servers/a%00b`, remote(peers.everything)), 400, "invalidConfig");
    const ok = await api("PUT", `/v1/sessions/${id}/servers/constructor`, remote(peers.everything));
    expect(ok.status).toBe(200);
    expect((await api("GET", `/v1/sessions/${id}`)).body.servers.constructor.status).toBe("connected");
  });
});
