/**
 * The aggregated MCP endpoint, `/v1/sessions/:id/mcp`, driven by the SDK's own
 * `Client` over Streamable HTTP (routed into the Worker) against sessions that front
 * real server-everything and the fixture server.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { api, createSession, peers, remote } from "./helpers.js";

const BASE = "http://mcp-edge.test";
const workerFetch: typeof fetch = (input, init) => exports.default.fetch(new Request(input, init));

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
});

async function connect(sessionId: string, options: { query?: string; capabilities?: ClientCapabilities; setup?: (client: Client) => void } = {}) {
  const client = new Client({ name: "downstream-test", version: "1.0.0" }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/v1/sessions/${sessionId}/mcp${options.query ?? ""}`), { fetch: workerFetch });
  await client.connect(transport);
  open.push(client);
  return { client, transport };
}

const text = (result: CallToolResult) => result.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await workerFetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });
  return { status: response.status, body: (await response.text()) || undefined };
}

describe("the aggregated MCP endpoint", () => {
  it("initializes, lists the catalog's namespaced tools with the session's instructions, and calls through the session", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const { client, transport } = await connect(session.id);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.getServerVersion()?.name).toBe("mcp-edge");
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: {}, prompts: {}, logging: {} });
    expect(client.getInstructions()).toContain('<mcp_instructions server="everything">');

    const { tools } = await client.listTools();
    const rest = (await api("GET", `/v1/sessions/${session.id}/tools`)).body.tools as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(rest.map((t) => t.name));
    const echo = tools.find((t) => t.name === "everything_echo")!;
    expect(echo._meta).toMatchObject({ "io.mcp-edge/server": "everything", "io.mcp-edge/tool": "echo" });
    expect(echo.inputSchema.type).toBe("object");

    const result = (await client.callTool({ name: "everything_echo", arguments: { message: "hi" } })) as CallToolResult;
    expect(text(result)).toBe("Echo: hi");
    // Raw results pass untouched: structured content stays structured.
    const structured = (await client.callTool({ name: "everything_get-structured-content", arguments: { location: "New York" } })) as CallToolResult;
    expect(structured.structuredContent).toBeTypeOf("object");
  });

  it("relays progress from the upstream call to the downstream progress token", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const { client } = await connect(session.id);
    const progress: Progress[] = [];
    const result = (await client.callTool({ name: "everything_trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(progress.length).toBe(3);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress[0]!.total).toBe(3);
  });

  it("cancels the upstream call when the downstream client cancels", async () => {
    const session = await createSession({ fixture: remote(peers.fixture) });
    const { client } = await connect(session.id);
    const before = Number(text((await client.callTool({ name: "fixture_cancelled_count" })) as CallToolResult));
    const controller = new AbortController();
    const call = client.callTool({ name: "fixture_slow", arguments: { ms: 20_000 } }, undefined, { signal: controller.signal });
    // Cancel once the call has reached the fixture (it appears in the session's metrics).
    await waitForEvent(session.id, "tool.started", (data) => data.name === "fixture_slow");
    controller.abort("user pressed stop");
    await expect(call).rejects.toThrow();
    await eventually(
      async () => Number(text((await client.callTool({ name: "fixture_cancelled_count" })) as CallToolResult)),
      (count) => count > before,
    );
  });

  it("serves resources with their URIs unchanged and their server in _meta, and prompts named like tools", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const { client } = await connect(session.id);
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    expect(resources[0]!.uri).toMatch(/^demo:\/\//);
    expect(resources[0]!._meta).toMatchObject({ "io.mcp-edge/server": "everything" });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}");

    const listed = await client.readResource({ uri: resources[0]!.uri });
    expect(listed.contents[0]!.uri).toBe(resources[0]!.uri);
    // Not listed, but matches a template.
    const dynamic = await client.readResource({ uri: "demo://resource/dynamic/text/7" });
    expect(dynamic.contents[0]).toMatchObject({ uri: "demo://resource/dynamic/text/7" });

    const { prompts } = await client.listPrompts();
    const simple = prompts.find((p) => p.name === "everything_simple-prompt")!;
    expect(simple._meta).toMatchObject({ "io.mcp-edge/server": "everything", "io.mcp-edge/prompt": "simple-prompt" });
    const got = await client.getPrompt({ name: "everything_simple-prompt" });
    expect(got.messages.length).toBeGreaterThan(0);
    await expect(client.getPrompt({ name: "simple-prompt" })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it("relays server logs (logger = server name), during a call on the call's own stream", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const logs: Array<{ level: string; logger?: string }> = [];
    const { client } = await connect(session.id, {
      setup: (c) => c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params)),
    });
    // server-everything logs once at once when simulated logging is switched on (then every 5 s).
    await client.callTool({ name: "everything_toggle-simulated-logging" });
    await eventually(async () => logs, (seen) => seen.some((l) => l.logger === "everything"));
    await client.callTool({ name: "everything_toggle-simulated-logging" });
  });

  it("forwards subscriptions and relays the server's resource updates; completes prompt arguments on the owning server", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const updated: string[] = [];
    const { client } = await connect(session.id, {
      setup: (c) => c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri)),
    });
    const uri = (await client.listResources()).resources[0]!.uri;
    await client.subscribeResource({ uri });
    // server-everything sends updates for subscribed resources once switched on (at once, then every 5 s).
    await client.callTool({ name: "everything_toggle-subscriber-updates" });
    await eventually(async () => updated, (uris) => uris.includes(uri));
    await client.unsubscribeResource({ uri });

    const completion = await client.complete({ ref: { type: "ref/prompt", name: "everything_completable-prompt" }, argument: { name: "department", value: "Eng" } });
    expect(completion.completion.values).toEqual(["Engineering"]);
    await expect(client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "a", value: "" } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it("routes a resource read by _meta when several servers offer resources, and says which server is needed when nothing matches", async () => {
    const session = await createSession({ a: remote(peers.everything), b: remote(peers.everythingSse) });
    const { client } = await connect(session.id);
    const uri = "demo://resource/dynamic/text/3";
    const fromB = await client.readResource({ uri, _meta: { "io.mcp-edge/server": "b" } });
    expect(fromB.contents[0]!.uri).toBe(uri);
    await expect(client.readResource({ uri: "nothing://here" })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri, _meta: { "io.mcp-edge/server": "nope" } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it("lists the search meta-tools in search mode and reaches catalog tools through them", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const { client } = await connect(session.id, { query: "?mode=search" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["search_tools", "get_tool_details", "call_tool"]));
    expect(tools.some((t) => t.name === "everything_echo")).toBe(false);
    const hits = (await client.callTool({ name: "search_tools", arguments: { query: "echo a message" } })) as CallToolResult;
    expect(text(hits)).toContain("everything_echo");
    const echoed = (await client.callTool({ name: "call_tool", arguments: { name: "everything_echo", arguments: { message: "via meta" } } })) as CallToolResult;
    expect(text(echoed)).toBe("Echo: via meta");
  });

  it("names a server's tools without its prefix when it is configured with prefix: false", async () => {
    const session = await createSession({ plain: remote(peers.everything, { prefix: false }) });
    const { client } = await connect(session.id);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("echo");
    expect(names.some((n) => n.startsWith("plain_"))).toBe(false);
    expect(text((await client.callTool({ name: "echo", arguments: { message: "bare" } })) as CallToolResult)).toBe("Echo: bare");
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("simple-prompt");
  });

  it("tells the downstream client when the catalog changes", async () => {
    const session = await createSession({ fixture: remote(peers.fixture) });
    let changed = 0;
    const { client } = await connect(session.id, {
      setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++),
    });
    const name = `added_${crypto.randomUUID().slice(0, 8)}`;
    await client.listTools();
    await client.callTool({ name: "fixture_add_tool", arguments: { name } });
    await eventually(async () => changed, (n) => n > 0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(`fixture_${name}`);
  });

  it("answers upstream roots/list with the roots of a downstream client that declares roots", async () => {
    const session = await createSession({ everything: remote(peers.everything) }, { roots: ["file:///session/root"] });
    const before = (await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_get-roots-list" })).body.output as string;
    expect(before).toContain("file:///session/root");
    const root = "file:///downstream/workspace";
    await connect(session.id, {
      capabilities: { roots: { listChanged: true } },
      setup: (c) => c.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: root, name: "workspace" }] })),
    });
    // Registering tells the server the roots changed; it asks again and gets the downstream's.
    await eventually(
      async () => (await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_get-roots-list" })).body.output as string,
      (output) => output.includes(root),
    );
  });

  it("after eviction a downstream session is unknown (404, so the client initializes again), and a new one works", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const { client } = await connect(session.id);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // Throw the session object out of memory (its storage stays), as lifecycle.test.ts does.
    await runInDurableObject(env.SESSIONS.getByName(session.id), (_instance, state) => state.abort("evicted by test")).catch(() => undefined);
    const error = await client.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(404);
    const fresh = await connect(session.id);
    expect(text((await fresh.client.callTool({ name: "everything_echo", arguments: { message: "again" } })) as CallToolResult)).toBe("Echo: again");
  });

  describe("bad input", () => {
    it("an unknown tool is a JSON-RPC invalid-params error", async () => {
      const session = await createSession({ everything: remote(peers.everything) });
      const { client } = await connect(session.id);
      const error = await client.callTool({ name: "everything_nope" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((error as McpError).message).toContain("everything_nope");
    });

    it("malformed JSON is -32700, a non-JSON-RPC body is refused, an unknown Mcp-Session-Id is 404", async () => {
      const session = await createSession({});
      const path = `/v1/sessions/${session.id}/mcp`;
      const garbage = await post(path, "{not json");
      expect(garbage.status).toBe(400);
      expect(JSON.parse(garbage.body!)).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
      const notRpc = await post(path, JSON.stringify({ hello: "world" }));
      expect(notRpc.status).toBe(400);
      expect([-32700, -32600]).toContain(JSON.parse(notRpc.body!).error.code);
      const unknown = await post(path, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { "mcp-session-id": "forgotten" });
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.body!)).toMatchObject({ error: { code: -32001 } });
      const noSession = await post(path, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
      expect(noSession.status).toBe(400);
    });

    it("an unknown mcp-edge session is a 404 JSON error, and a bad listing mode a 400", async () => {
      const missing = await post(`/v1/sessions/ses_${"0".repeat(26)}/mcp`, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body!)).toMatchObject({ error: { code: "sessionNotFound" } });
      const session = await createSession({});
      const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } };
      const bad = await post(`/v1/sessions/${session.id}/mcp?mode=everything`, JSON.stringify(init));
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body!)).toMatchObject({ error: { code: "badRequest" } });
    });

    it("a deleted downstream session is gone (404), the mcp-edge session stays", async () => {
      const session = await createSession({ everything: remote(peers.everything) });
      const { client, transport } = await connect(session.id);
      const id = transport.sessionId!;
      await transport.terminateSession();
      const after = await post(`/v1/sessions/${session.id}/mcp`, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), {
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-06-18",
      });
      expect(after.status).toBe(404);
      await client.close();
      expect((await api("GET", `/v1/sessions/${session.id}`)).status).toBe(200);
    });
  });
});

/** Reads the session's event stream until an event of `type` arrives; answers its data. */
async function waitForEvent(sessionId: string, type: string, check: (data: Record<string, unknown>) => boolean, timeoutMs = 10_000): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await exports.default.fetch(new Request(`${BASE}/v1/sessions/${sessionId}/events`, { signal: controller.signal }));
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`no ${type} event`);
      buffer += value;
      const events = buffer.split("\n\n");
      buffer = events.pop()!;
      for (const event of events) {
        const data = /^data: (.*)$/m.exec(event)?.[1];
        if (event.includes(`event: ${type}\n`) && data && check(JSON.parse(data) as Record<string, unknown>)) {
          void reader.cancel().catch(() => undefined);
          return;
        }
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
