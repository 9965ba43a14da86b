/**
 * End to end: the built Worker on workerd + the real bridge CLI (a separate Node process)
 * + real stdio MCP servers, talking over real sockets on 127.0.0.1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorker, startGateway, type Gateway } from "./gateway.js";
import { eventually } from "../support/eventually.js";
import { startModelServer, type ModelServer } from "../support/model-server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const NODE = process.execPath;
const TOKEN = "e2e-bridge-token";
const OTHER_TOKEN = "e2e-other-token";

let gateway: Gateway;
let model: ModelServer;
let work: string;
let config: string;
const bridges = new Set<ChildProcess>();

function startBridge(id: string, token = TOKEN): ChildProcess {
  const child = spawn(NODE, [`${root}bridge/bin/mcp-edge-bridge.mjs`, "--gateway", gateway.url, "--config", config, "--id", id], {
    env: { ...process.env, MCP_EDGE_BRIDGE_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.resume();
  child.stderr?.resume();
  bridges.add(child);
  child.once("exit", () => bridges.delete(child));
  return child;
}

async function stopBridge(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}


const bridgeListed = (id: string) =>
  eventually(
    () => api("GET", "/v1/bridges"),
    (res) => res.body.bridges.some((b: { id: string }) => b.id === id),
    20_000,
  );

const local = (server: string, bridge = "dev") => ({ type: "local", bridge, server });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcp-edge-e2e-"));
  writeFileSync(join(work, "hello.txt"), "hello from the developer's disk\n");
  config = join(work, "bridge.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: { command: NODE, args: [`${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, "stdio"] },
        filesystem: { command: NODE, args: [`${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`], cwd: work },
        memory: {
          command: NODE,
          args: [`${root}node_modules/@modelcontextprotocol/server-memory/dist/index.js`],
          env: { MEMORY_FILE_PATH: join(work, "memory.jsonl") },
        },
        crasher: { command: NODE, args: [`${root}test/bridge/fixtures/exit-at-once.mjs`] },
      },
    }),
  );
  model = await startModelServer();
  gateway = await startGateway(await buildWorker(), { BRIDGE_TOKENS: `local:${TOKEN},someone-else:${OTHER_TOKEN}` });
  startBridge("dev");
  await bridgeListed("dev");
}, 120_000);

afterAll(async () => {
  await Promise.all([...bridges].map((b) => stopBridge(b)));
  await gateway?.stop();
  await model?.close();
});

describe("bridged stdio servers, end to end", () => {
  it("GET /v1/bridges lists the bridge and the servers it offers", async () => {
    const res = await api("GET", "/v1/bridges");
    const dev = res.body.bridges.find((b: { id: string }) => b.id === "dev");
    expect(dev.servers.map((s: { name: string }) => s.name).sort()).toEqual(["crasher", "everything", "filesystem", "memory"]);
  });

  it("server-everything, server-filesystem (roots from the bridge) and server-memory work like remote servers", async () => {
    const created = await api("POST", "/v1/sessions", { servers: { everything: local("everything"), fs: local("filesystem"), mem: local("memory") } });
    expect(created.status).toBe(201);
    expect(created.body.servers).toMatchObject({ everything: { status: "connected" }, fs: { status: "connected" }, mem: { status: "connected" } });
    const id = created.body.id;
    const call = (name: string, args: Record<string, unknown> = {}) => api("POST", `/v1/sessions/${id}/tools/call`, { name, arguments: args });

    expect((await call("everything_echo", { message: "through the bridge" })).body.output).toBe("Echo: through the bridge");
    const read = await eventually(
      () => call("fs_read_text_file", { path: join(work, "hello.txt") }),
      (res) => res.body.isError === false,
      20_000,
    );
    expect(read.body.output).toContain("hello from the developer's disk");
    const made = await call("mem_create_entities", { entities: [{ name: "mcp-edge", entityType: "project", observations: ["runs at the edge"] }] });
    expect(made.body.isError).toBe(false);
    expect((await call("mem_read_graph")).body.output).toContain("runs at the edge");
  });

  it("a server that exits at once shows its exit code and stderr; an unknown server is a clear error", async () => {
    const created = await api("POST", "/v1/sessions", { servers: { crash: local("crasher"), ghost: local("nope") } });
    expect(created.body.servers.crash.status).toBe("failed");
    expect(created.body.servers.crash.error).toContain("exit code 3");
    expect(created.body.servers.crash.error).toContain("fatal: missing configuration");
    expect(created.body.servers.ghost).toMatchObject({ status: "failed", error: expect.stringContaining("nope") });
    expect(created.body.servers.ghost.error).toContain("everything");
  });

  it("a bridged server's sampling request is approved and answered by the session's model", async () => {
    const created = await api("POST", "/v1/sessions", {
      servers: { everything: { ...local("everything"), sampling: "ask" } },
      providers: { scripted: { kind: "openai-compatible", baseURL: model.baseURL, models: { echo: {} } } },
      model: "scripted/echo",
    });
    const id = created.body.id;
    const call = api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_trigger-sampling-request", arguments: { prompt: "from the laptop", maxTokens: 20 } });
    const listed = await eventually(() => api("GET", `/v1/sessions/${id}/approvals`), (res) => res.body.approvals.length > 0, 20_000);
    expect(listed.body.approvals[0]).toMatchObject({ kind: "sampling", server: "everything" });
    expect((await api("POST", `/v1/sessions/${id}/approvals/${listed.body.approvals[0].id}`, { reply: "once" })).status).toBe(200);
    const result = await call;
    expect(result.body.isError).toBe(false);
    expect(result.body.output).toContain("You said: Resource trigger-sampling-request context: from the laptop");
  });

  it("a 10 MB message passes intact both ways", async () => {
    const created = await api("POST", "/v1/sessions", { servers: { everything: local("everything") } });
    const message = "x".repeat(10_000_000);
    const res = await api("POST", `/v1/sessions/${created.body.id}/tools/call`, { name: "everything_echo", arguments: { message } });
    expect(res.status).toBe(200);
    expect(res.body.output.length).toBe(message.length + "Echo: ".length);
  }, 60_000);

  it("bridge tokens never reach an answer, an event, a tool result or a sandbox's output", async () => {
    const created = await api("POST", "/v1/sessions", { servers: { everything: local("everything") } });
    const id = created.body.id;
    const events = await fetch(`${gateway.url}/v1/sessions/${id}/events`);
    const reader = events.body!.getReader();
    const answers: unknown[] = [created.body];
    answers.push((await api("GET", "/v1/bridges")).body);
    answers.push((await api("GET", `/v1/sessions/${id}`)).body);
    answers.push((await api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_get-env", arguments: {} })).body);
    answers.push((await api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_echo", arguments: { message: "hi" } })).body);
    // A script looks around its sandbox as hard as it can.
    answers.push(
      (
        await api("POST", `/v1/sessions/${id}/exec`, {
          code: 'const seen = { globals: Object.getOwnPropertyNames(globalThis), env: typeof process === "object" ? process.env : null, directory: toolDirectory }; console.log(JSON.stringify(seen)); return seen;',
        })
      ).body,
    );
    answers.push((await api("POST", `/v1/sessions/${id}/servers/nope/connect`)).body);
    let streamed = "";
    const decoder = new TextDecoder();
    while (!streamed.includes("everything_echo")) {
      const { value, done } = await reader.read();
      if (done) break;
      streamed += decoder.decode(value);
    }
    await reader.cancel();
    const text = JSON.stringify(answers) + streamed;
    // The bridged server's own environment is the bridge machine's: it never holds the token (child-env strips it).
    expect(text).toContain("Echo: hi");
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(OTHER_TOKEN);
  });

  it("another principal's bridge cannot be reached", async () => {
    const theirs = startBridge("theirs", OTHER_TOKEN);
    try {
      // It is connected (to its own principal's hub), but not listed for, or reachable by, our sessions.
      const created = await api("POST", "/v1/sessions", { servers: { everything: local("everything", "theirs") } });
      expect(created.body.servers.everything).toMatchObject({ status: "failed", error: expect.stringContaining("offline") });
      expect((await api("GET", "/v1/bridges")).body.bridges.map((b: { id: string }) => b.id)).not.toContain("theirs");
    } finally {
      await stopBridge(theirs);
    }
  });

  it("a bridge killed mid-call fails the call at once; its servers come back when it returns", async () => {
    const created = await api("POST", "/v1/sessions", { servers: { everything: local("everything") } });
    const id = created.body.id;
    const [dev] = [...bridges];
    const started = Date.now();
    const pending = api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_trigger-long-running-operation", arguments: { duration: 20, steps: 20 } });
    await new Promise((r) => setTimeout(r, 500));
    await stopBridge(dev!, "SIGKILL");
    const failed = await pending;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failed.status).toBe(502);
    expect((await api("GET", `/v1/sessions/${id}`)).body.servers.everything).toMatchObject({ status: "failed", error: expect.stringContaining("offline") });

    startBridge("dev");
    await eventually(
      () => api("GET", `/v1/sessions/${id}`),
      (res) => res.body.servers.everything.status === "connected",
      20_000,
    );
    expect((await api("POST", `/v1/sessions/${id}/tools/call`, { name: "everything_echo", arguments: { message: "back" } })).body.output).toBe("Echo: back");
  }, 60_000);
});
