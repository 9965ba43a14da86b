/**
 * `mcp-edge/client` against the real Worker and real MCP servers, every method, with
 * its `fetch` injected (the Worker's own fetch handler, as a service binding would be).
 */
import { exports } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpEdgeApiError, McpEdgeClient } from "../../src/client/index.js";
import { META_TOOL_NAMES } from "../../src/core/discovery/meta-tools.js";
import { peers } from "./helpers.js";

const seen: Array<{ method: string; url: string; signal: AbortSignal | null | undefined }> = [];
const client = new McpEdgeClient({
  baseUrl: "http://mcp-edge.test/",
  fetch: (input, init) => {
    seen.push({ method: init.method ?? "GET", url: input, signal: init.signal });
    return exports.default.fetch(new Request(input, init));
  },
});

async function apiError(promise: Promise<unknown>): Promise<McpEdgeApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!McpEdgeApiError.is(error)) throw new Error(`expected an McpEdgeApiError, got ${String(error)}`);
  return error;
}

describe("McpEdgeClient against the Worker", () => {
  let id: string;

  beforeAll(async () => {
    const session = await client.createSession({
      servers: { everything: { type: "remote", url: peers.everything }, fixture: { type: "remote", url: peers.fixture } },
    });
    id = session.id;
    expect(session.servers.everything?.status).toBe("connected");
  });

  afterAll(async () => {
    await client.deleteSession(id).catch(() => undefined);
  });

  it("health, openApi and listBridges", async () => {
    expect(await client.health()).toEqual({ ok: true, version: expect.any(String) });
    expect((await client.openApi()).openapi).toBe("3.1.0");
    expect(await client.listBridges()).toEqual({ bridges: expect.any(Array) });
  });

  it("events(): a live async iterator that reconnects with Last-Event-ID without repeating events", async () => {
    // A fetch that cuts the first event stream after its third event, as a dropped connection would.
    let streams = 0;
    const headersSeen: Array<string | null> = [];
    const cutting = new McpEdgeClient({
      baseUrl: "http://mcp-edge.test",
      fetch: async (input, init) => {
        const response = await exports.default.fetch(new Request(input, init));
        if (!input.endsWith("/events")) return response;
        headersSeen.push(new Headers(init.headers).get("last-event-id"));
        if (++streams > 1) return response;
        let events = 0;
        const reader = response.body!.getReader();
        const cut = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { value, done } = await reader.read();
            if (done || events >= 3) {
              await reader.cancel();
              controller.error(new Error("connection dropped"));
              return;
            }
            events += (new TextDecoder().decode(value).match(/^id: /gm) ?? []).length;
            controller.enqueue(value);
          },
        });
        return new Response(cut, { headers: response.headers });
      },
    });
    const { id: session } = await cutting.createSession({ servers: { everything: { type: "remote", url: peers.everything } } });
    for (let i = 0; i < 3; i++) await cutting.callTool(session, { name: "everything_echo", arguments: { message: `m${i}` } });
    const controller = new AbortController();
    const ids: number[] = [];
    let finished = 0;
    const reading = (async () => {
      for await (const event of cutting.events(session, { signal: controller.signal, minDelayMs: 10 })) {
        ids.push(Number(event.id));
        if (event.type !== "tool.finished") continue;
        finished++;
        if (finished === 4) break;
        // The backlog is read (across the drop): one more call must arrive live.
        if (finished === 3) void cutting.callTool(session, { name: "everything_echo", arguments: { message: "after the drop" } });
      }
    })();
    await reading;
    controller.abort();
    expect(streams).toBeGreaterThanOrEqual(2);
    expect(headersSeen[0]).toBeNull();
    expect(headersSeen[1]).not.toBeNull();
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it("startTurn and endTurn", async () => {
    const { id: turnId } = await client.startTurn(id);
    expect(turnId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const ended = await client.endTurn(id, turnId, { status: "completed" });
    expect(ended).toEqual({ id: turnId, status: "completed", notified: [], timedOut: [], failed: [] });
  });

  it("getSession", async () => {
    const session = await client.getSession(id);
    expect(session.id).toBe(id);
    expect(session.servers.everything).toMatchObject({ status: "connected" });
    expect(session.servers.fixture).toMatchObject({ status: "connected" });
  });

  it("listTools in full and search mode, searchTools, callTool with a turn", async () => {
    const full = await client.listTools(id);
    expect(full.mode).toBe("full");
    expect(full.tools.map((t) => t.name)).toContain("everything_echo");

    const search = await client.listTools(id, { mode: "search", turn: "client-turn" });
    expect(search.tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);

    const refused = await client.callTool(id, { name: "everything_echo", arguments: { message: "x" }, turn: "client-turn" });
    expect(refused.isError).toBe(true);

    const found = await client.searchTools(id, { query: "echo", limit: 3, turn: { id: "client-turn", actorId: "agent" } });
    expect(found.results.map((r) => r.name)).toContain("everything_echo");
    expect(found.loaded).toContain("everything_echo");

    const auto = await client.listTools(id, { mode: "auto", contextWindow: 1000, usedTokens: 10, turn: "client-turn" });
    expect(auto.mode).toBe("search");
    expect(auto.tools.map((t) => t.name)).toContain("everything_echo");

    expect(await client.callTool(id, { name: "everything_echo", arguments: { message: "loaded" }, turn: "client-turn" })).toEqual({
      output: "Echo: loaded",
      attachments: [],
      metadata: {},
      isError: false,
    });
    const image = await client.callTool(id, { name: "everything_get-tiny-image" });
    expect(image.attachments[0]).toMatchObject({ mime: "image/png", url: expect.stringMatching(/^data:image\/png;base64,/) });
  });

  it("resources, templates, prompts and instructions", async () => {
    const resources = await client.listResources(id);
    expect(resources.resources.length).toBeGreaterThan(0);
    expect(resources.resources[0]!.server).toBe("everything");
    expect((await client.listResourceTemplates(id)).resourceTemplates.length).toBeGreaterThan(0);
    const read = await client.readResource(id, { server: "everything", uri: "demo://resource/dynamic/text/1" });
    expect(read.contents[0]!.uri).toBe("demo://resource/dynamic/text/1");
    const prompts = await client.listPrompts(id);
    expect(prompts.prompts.map((p) => p.name)).toContain("simple-prompt");
    const prompt = await client.getPrompt(id, { server: "everything", name: "simple-prompt" });
    expect(prompt.messages.length).toBeGreaterThan(0);
    const instructions = await client.instructions(id);
    expect(instructions.servers.map((s) => s.server)).toContain("fixture");
  });

  it("putServer, disconnectServer, connectServer, deleteServer (names are URL-encoded)", async () => {
    const name = "my server #1";
    expect(await client.putServer(id, name, { type: "remote", url: peers.fixture })).toMatchObject({ status: "connected" });
    expect(seen.at(-1)!.url).toBe(`http://mcp-edge.test/v1/sessions/${id}/servers/my%20server%20%231`);
    expect(await client.disconnectServer(id, name)).toEqual({ status: "disabled" });
    expect(await client.connectServer(id, name)).toMatchObject({ status: "connected" });
    await expect(client.deleteServer(id, name)).resolves.toBeUndefined();
    expect((await apiError(client.connectServer(id, name))).code).toBe("serverNotFound");
  });

  it("typed errors carry status, code, message and data", async () => {
    const unknownTool = await apiError(client.callTool(id, { name: "everything_nope" }));
    expect(unknownTool).toBeInstanceOf(McpEdgeApiError);
    expect(unknownTool).toMatchObject({ status: 404, code: "toolNotFound", data: { name: "everything_nope" } });
    expect(unknownTool.message).toContain("everything_nope");

    const badConfig = await apiError(client.putServer(id, "bad", { type: "remote", url: "http://127.0.0.1/mcp", ...{ bogus: 1 } }));
    expect(badConfig).toMatchObject({ status: 400, code: "unknownKeys", data: { unknownKeys: ["bogus"] } });

    const badQuery = await apiError(client.listTools(id, { contextWindow: -1 }));
    expect(badQuery).toMatchObject({ status: 400, code: "badRequest" });
  });

  it("passes the signal to fetch", async () => {
    const controller = new AbortController();
    await client.getSession(id, { signal: controller.signal });
    expect(seen.at(-1)!.signal).toBe(controller.signal);
  });

  it("deleteSession, then the session is gone", async () => {
    const session = await client.createSession();
    await expect(client.deleteSession(session.id)).resolves.toBeUndefined();
    expect(await apiError(client.getSession(session.id))).toMatchObject({ status: 404, code: "sessionNotFound" });
  });
});
