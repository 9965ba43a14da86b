/**
 * The real BridgeLink against a stand-in gateway (gateway-stub.ts) over a real WebSocket:
 * hello/welcome, channels to real stdio servers with raw JSON-RPC relayed in message
 * frames, failures (unknown server, a server that exits at once), close, a 10 MB echo
 * chunked both ways, reconnect after a drop, refused tokens, idle and backpressure closes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { FRAME_CHUNK_CHARS, type ChildExitInfo } from "../../src/core/bridge-protocol.js";
import { CloseReasons } from "../../bridge/src/channel.js";
import { BRIDGE_TOKEN_VAR } from "../../bridge/src/child-env.js";
import { ChildRegistry } from "../../bridge/src/child-registry.js";
import type { BridgeServer } from "../../bridge/src/config.js";
import type { LinkEnd, LinkEvent } from "../../bridge/src/link-events.js";
import { BridgeLink, REPLACED_CLOSE_CODE, type BridgeLinkOptions } from "../../bridge/src/link.js";
import { recorder, REFUSAL_MESSAGE, startGatewayStub, STUB_TOKEN, type FrameOf, type GatewayStub, type Recorder, type StubConnection } from "./gateway-stub.js";
import { fixture, isAlive, NODE, packageBin, waitUntil, within } from "./helpers.js";

const BRIDGE_ID = "test-bridge";
const VERSION = "9.9.9-test";
const BACKOFF = { baseMs: 20, capMs: 100 };

function nodeServer(name: string, script: string, args: string[] = [], extra: Partial<BridgeServer> = {}): BridgeServer {
  return { name, command: NODE, args: [script, ...args], env: {}, source: "test", ...extra };
}

const SERVERS: BridgeServer[] = [
  nodeServer("everything", packageBin("@modelcontextprotocol/server-everything/dist/index.js"), ["stdio"]),
  nodeServer("big", fixture("large-echo-server.mjs")),
  nodeServer("crasher", fixture("exit-at-once.mjs")),
  nodeServer("env", fixture("print-env.mjs"), [], { env: { GIVEN_API_KEY: "configured-on-purpose" } }),
];

const registry = new ChildRegistry();
const running: { link: BridgeLink; stub: GatewayStub }[] = [];

afterEach(async () => {
  for (const { link, stub } of running.splice(0)) {
    await within(link.stop(), 15_000, "the link to stop");
    await stub.close();
  }
  registry.killAll("SIGKILL");
});

interface Started {
  stub: GatewayStub;
  link: BridgeLink;
  events: Recorder<LinkEvent>;
  done: Promise<LinkEnd>;
}

async function start(options: Partial<BridgeLinkOptions> = {}, stubOptions: Parameters<typeof startGatewayStub>[0] = {}): Promise<Started> {
  const stub = await startGatewayStub(stubOptions);
  const events = recorder<LinkEvent>();
  const link = new BridgeLink({
    gateway: stub.url,
    bridgeId: BRIDGE_ID,
    token: STUB_TOKEN,
    servers: SERVERS,
    clientVersion: VERSION,
    backoff: BACKOFF,
    transport: { registry, stdinCloseGraceMs: 1_000, sigtermGraceMs: 1_000 },
    onEvent: (event) => events.push(event),
    ...options,
  });
  running.push({ link, stub });
  const done = link.run();
  return { stub, link, events, done };
}

/** Connected and welcomed: the first connection of `started`. */
async function ready(started: Started): Promise<StubConnection> {
  const conn = await started.stub.connection(0);
  await conn.hello();
  await started.events.waitFor((e) => e.type === "connected", "connected");
  return conn;
}

async function openChannel(conn: StubConnection, channel: string, server: string): Promise<void> {
  conn.send({ type: "open", channel, server });
  await conn.frame("opened", channel);
}

async function initialize(conn: StubConnection, channel: string): Promise<Record<string, unknown>> {
  const response = await conn.request(channel, 1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "gateway-stub", version: "1.0.0" },
  });
  conn.send({ type: "message", channel, message: { jsonrpc: "2.0", method: "notifications/initialized" } });
  return response;
}

function pidOf(events: Recorder<LinkEvent>, channel: string): Promise<number> {
  return events
    .waitFor((e): e is Extract<LinkEvent, { type: "channel_opened" }> => e.type === "channel_opened" && e.channel === channel, `${channel} opened`)
    .then((e) => {
      expect(e.pid).toBeTypeOf("number");
      return e.pid!;
    });
}

function textOf(response: Record<string, unknown>): string {
  const result = response.result as { content: { type: string; text: string }[] };
  return result.content.map((c) => c.text).join("");
}

describe("handshake", () => {
  it("dials /v1/bridges/connect with the bearer token, offers the configured servers in hello, and is ready after welcome", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "bridge-root-"));
    try {
      const servers = [...SERVERS, nodeServer("rooted", fixture("print-env.mjs"), [], { cwd: dir })];
      const started = await start({ servers, cwd: "/work/somewhere" });
      const conn = await started.stub.connection(0);
      expect(conn.path).toBe(`/v1/bridges/connect?bridge=${BRIDGE_ID}`);
      expect(conn.headers.authorization).toBe(`Bearer ${STUB_TOKEN}`);
      const hello = await conn.hello();
      expect(hello).toEqual({
        type: "hello",
        version: 1,
        bridge: BRIDGE_ID,
        servers: [
          ...SERVERS.map((s) => ({ name: s.name, roots: [pathToFileURL("/work/somewhere").href] })),
          { name: "rooted", roots: [pathToFileURL(dir).href] },
        ],
        client: { name: "mcp-edge-bridge", version: VERSION },
      });
      const connected = await started.events.waitFor((e) => e.type === "connected", "connected");
      expect(connected).toEqual({ type: "connected", bridge: BRIDGE_ID, version: 1 });
      expect(started.link.state).toBe("ready");
      expect(started.events.items[0]).toMatchObject({ type: "connecting", attempt: 1, url: `${started.stub.url.replace("http", "ws")}/v1/bridges/connect` });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("ends with `incompatible` when the gateway speaks another protocol version", async () => {
    const started = await start({}, { welcomeVersion: 2 });
    const end = await within(started.done, 10_000, "run() to end");
    expect(end).toEqual({ kind: "incompatible", message: expect.stringContaining("protocol v2, this bridge v1") });
    expect(started.stub.upgrades).toBe(1);
  });

  it("an error frame instead of welcome is shown and the connection retried at once", async () => {
    const started = await start({ welcomeTimeoutMs: 60_000 }, { onHello: { error: "protocol version 1 is not supported" } });
    await started.stub.connection(1, 10_000);
    expect(started.events.items).toContainEqual({ type: "gateway_error", message: "protocol version 1 is not supported" });
    const disconnected = await started.events.waitFor((e) => e.type === "disconnected", "disconnected");
    expect(disconnected).toMatchObject({ reason: "the gateway refused hello: protocol version 1 is not supported", retryInMs: expect.any(Number) });
    expect(started.link.state).not.toBe("ready");
  });

  it("a gateway that never welcomes is dropped at the welcome timeout and retried", async () => {
    const started = await start({ welcomeTimeoutMs: 300 }, { onHello: "silent" });
    await started.stub.connection(1, 10_000);
    const disconnected = await started.events.waitFor((e) => e.type === "disconnected", "disconnected");
    expect(disconnected).toMatchObject({ reason: "no welcome from the gateway within 300 ms" });
  });

  it("a socket that stops answering pings is dropped and redialled", async () => {
    const started = await start({ pingIntervalMs: 200 }, { autoPong: false });
    await ready(started);
    await started.stub.connection(1, 10_000);
    const disconnected = await started.events.waitFor((e) => e.type === "disconnected", "disconnected");
    expect(disconnected).toMatchObject({ reason: "no answer to a ping within 200 ms" });
  });

  it("invalid frames and frames for unknown channels are reported and ignored; the connection stays", async () => {
    const started = await start();
    const conn = await ready(started);
    conn.sendRaw("not json");
    conn.sendRaw(JSON.stringify({ type: "launch", command: "rm -rf /" }));
    conn.send({ type: "message", channel: "nobody/here", message: { jsonrpc: "2.0", id: 1, method: "ping" } });
    conn.send({ type: "close", channel: "nobody/here" });
    await started.events.waitFor((e) => e.type === "unknown_channel" && e.frame === "close", "the unknown close");
    const invalid = started.events.items.filter((e) => e.type === "invalid_frame");
    expect(invalid).toHaveLength(2);
    expect(started.events.items).toContainEqual({ type: "unknown_channel", channel: "nobody/here", frame: "message" });
    await openChannel(conn, "s/everything", "everything");
    expect(started.stub.upgrades).toBe(1);
  });
});

describe("channels", () => {
  it("opens server-everything and relays initialize, tools/list and tools/call as raw JSON-RPC; close ends it as a host shutdown", async () => {
    const started = await start();
    const conn = await ready(started);
    const channel = "ses_1/everything";
    await openChannel(conn, channel, "everything");
    const pid = await pidOf(started.events, channel);
    expect(isAlive(pid)).toBe(true);

    const init = await initialize(conn, channel);
    expect(init).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: expect.stringMatching(/everything/) } } });
    const list = await conn.request(channel, 2, "tools/list");
    const tools = (list.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toContain("echo");
    // Verbatim both ways: _meta goes in, structured content comes back as the server wrote it.
    const echo = await conn.request(channel, "3", "tools/call", { name: "echo", arguments: { message: "hi bridge" }, _meta: { progressToken: "p-1" } });
    expect(echo.id).toBe("3");
    expect(textOf(echo)).toBe("Echo: hi bridge");

    conn.send({ type: "close", channel });
    const closed = await conn.frame("closed", channel);
    expect(closed.exit).toMatchObject({ hostShutdown: true, signal: null });
    expect(closed.reason).toBeUndefined();
    expect(closed.exit!.stderr).toMatch(/Starting default \(STDIO\) server/);
    await waitUntil(() => !isAlive(pid), "the server process to end");
    expect(started.link.channels.size).toBe(0);
  });

  it("refuses a server the config does not name, listing the ones it offers", async () => {
    const started = await start();
    const conn = await ready(started);
    conn.send({ type: "open", channel: "s/ghost", server: "nope" });
    const failed = await conn.frame("open_failed", "s/ghost");
    expect(failed.error).toBe(`server "nope" is not offered by bridge "${BRIDGE_ID}" (it offers "everything", "big", "crasher", "env")`);
    expect(failed.exit).toBeUndefined();
    expect(conn.frames.items.some((f) => f.type === "opened")).toBe(false);
  });

  it("reports a command that cannot start as open_failed", async () => {
    const started = await start({ servers: [{ name: "ghost", command: "mcp-edge-no-such-command", args: ["--token", "s3cret-value"], env: {}, source: "test" }] });
    const conn = await ready(started);
    conn.send({ type: "open", channel: "s/ghost", server: "ghost" });
    const failed = await conn.frame("open_failed", "s/ghost");
    expect(failed.error).toMatch(/cannot start server "ghost": command not found \(ENOENT\)/);
    expect(failed.error).not.toContain("s3cret-value");
  });

  it("a server that exits at once with code 3 is reported with its exit code and stderr", async () => {
    const started = await start();
    const conn = await ready(started);
    const channel = "s/crasher";
    conn.send({ type: "open", channel, server: "crasher" });
    const end = await conn.frames.waitFor(
      (f): f is FrameOf<"closed"> | FrameOf<"open_failed"> => (f.type === "closed" || f.type === "open_failed") && f.channel === channel,
      "closed or open_failed",
    );
    const exit = end.exit as ChildExitInfo;
    expect(exit).toMatchObject({ code: 3, signal: null, hostShutdown: false });
    expect(exit.stderr).toContain("fatal: missing configuration");
    const reason = end.type === "closed" ? end.reason : end.error;
    expect(reason).toBe('server "crasher" exited with code 3: fatal: missing configuration');
  });

  it("children get the parent env without the bridge token or secret-looking names, plus their configured env", async () => {
    const parentEnv = { PATH: process.env.PATH, [BRIDGE_TOKEN_VAR]: "bridge-secret", GITHUB_TOKEN: "gh-secret", PLAIN: "kept" };
    const started = await start({ parentEnv });
    const conn = await ready(started);
    await openChannel(conn, "s/env", "env");
    const report = await conn.frames.waitFor((f) => f.type === "message" && f.channel === "s/env", "the env report");
    const env = ((report as FrameOf<"message">).message.params as { env: Record<string, string> }).env;
    expect(env.PLAIN).toBe("kept");
    expect(env.GIVEN_API_KEY).toBe("configured-on-purpose");
    expect(env[BRIDGE_TOKEN_VAR]).toBeUndefined();
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it("a configured deny list replaces the default one (the bridge token is always dropped)", async () => {
    const parentEnv = { PATH: process.env.PATH, [BRIDGE_TOKEN_VAR]: "bridge-secret", GITHUB_TOKEN: "gh-visible-now", CORP_CREDENTIAL: "hidden" };
    const started = await start({ parentEnv, denyEnv: ["CORP_*"] });
    const conn = await ready(started);
    await openChannel(conn, "s/env2", "env");
    const report = await conn.frames.waitFor((f) => f.type === "message" && f.channel === "s/env2", "the env report");
    const env = ((report as FrameOf<"message">).message.params as { env: Record<string, string> }).env;
    expect(env.CORP_CREDENTIAL).toBeUndefined();
    expect(env.GITHUB_TOKEN).toBe("gh-visible-now");
    expect(env[BRIDGE_TOKEN_VAR]).toBeUndefined();
  });

  it("a 10 MB echo passes intact both ways, chunked under 1 MiB per WebSocket message", async () => {
    const started = await start();
    const conn = await ready(started);
    const channel = "s/big";
    await openChannel(conn, channel, "big");
    await initialize(conn, channel);
    const text = "é✓x{\"\\".repeat(1_700_000); // 10.2 M characters, multi-byte and escaped ones among them
    const parts = conn.send({ type: "message", channel, message: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text } } } });
    expect(parts).toBeGreaterThan(10);
    const before = conn.messageSizes.length;
    const response = await conn.frames.waitFor((f) => f.type === "message" && f.channel === channel && f.message.id === 2, "the 10 MB echo", 60_000);
    expect(textOf((response as FrameOf<"message">).message)).toBe(text);
    const sizes = conn.messageSizes.slice(before);
    expect(sizes.length).toBeGreaterThan(10);
    expect(Math.max(...sizes)).toBeLessThan(1024 * 1024);
    expect(Math.max(...sizes)).toBeGreaterThan(FRAME_CHUNK_CHARS);
  }, 90_000);

  it("closes a channel idle past the timeout with reason idle; traffic keeps it open", async () => {
    const idleTimeoutMs = 2_000;
    const started = await start({ idleTimeoutMs });
    const conn = await ready(started);
    const channel = "s/everything";
    await openChannel(conn, channel, "everything");
    await initialize(conn, channel);
    // Traffic for longer than the timeout, never pausing as long as it.
    const busyUntil = Date.now() + idleTimeoutMs * 1.5;
    for (let id = 10; Date.now() < busyUntil; id++) {
      await conn.request(channel, id, "ping");
      await new Promise((resolve) => setTimeout(resolve, idleTimeoutMs / 5));
    }
    expect(conn.frames.items.some((f) => f.type === "closed")).toBe(false);
    const quietSince = Date.now();
    const closed = await conn.frame("closed", channel);
    expect(Date.now() - quietSince).toBeGreaterThanOrEqual(idleTimeoutMs * 0.5);
    expect(closed.reason).toBe(CloseReasons.idle);
    expect(closed.exit).toMatchObject({ hostShutdown: true });
  });

  it("closes a channel with reason backpressure instead of buffering past the bound", async () => {
    const started = await start({ maxBufferedBytes: 256 * 1024 });
    const conn = await ready(started);
    const channel = "s/big";
    await openChannel(conn, channel, "big");
    await initialize(conn, channel);
    conn.send({ type: "message", channel, message: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "x".repeat(1_000_000) } } } });
    const closed = await conn.frame("closed", channel);
    expect(closed.reason).toBe(CloseReasons.backpressure);
    expect(closed.exit).toMatchObject({ hostShutdown: true });
    expect(conn.frames.items.some((f) => f.type === "message" && f.message.id === 2)).toBe(false);
  });
});

describe("connection loss and refusal", () => {
  it("closes every channel's process when the socket drops, then reconnects and says hello again", async () => {
    const started = await start();
    const first = await ready(started);
    await openChannel(first, "s/everything", "everything");
    const pid = await pidOf(started.events, "s/everything");
    first.drop();
    const second = await started.stub.connection(1);
    const hello = await second.hello();
    expect(hello.bridge).toBe(BRIDGE_ID);
    await waitUntil(() => !isAlive(pid), "the server process to end after the drop");
    const disconnected = started.events.items.find((e) => e.type === "disconnected");
    expect(disconnected).toMatchObject({ type: "disconnected", channelsClosed: 1 });
    expect((disconnected as { retryInMs: number }).retryInMs).toBeLessThan(BACKOFF.capMs);
    // Nothing of the old channel leaks onto the new connection.
    await started.events.waitFor((e) => e.type === "connected" && started.events.items.filter((x) => x.type === "connected").length === 2, "connected again");
    expect(second.frames.items.map((f) => f.type)).toEqual(["hello"]);
    expect(started.link.channels.size).toBe(0);
  });

  it("retries a refused token with capped backoff, and connects once the gateway accepts it", async () => {
    const started = await start({}, { refuse: (attempt) => (attempt <= 3 ? 401 : undefined) });
    await ready(started);
    expect(started.stub.upgrades).toBe(4);
    const rejected = started.events.items.filter((e): e is Extract<LinkEvent, { type: "rejected" }> => e.type === "rejected");
    expect(rejected).toHaveLength(3);
    for (const event of rejected) {
      expect(event).toMatchObject({ status: 401, message: REFUSAL_MESSAGE });
      expect(event.retryInMs).toBeGreaterThanOrEqual(0);
      expect(event.retryInMs).toBeLessThan(BACKOFF.capMs);
    }
  });

  it("with once, a refused token ends run() as unauthorized without retrying", async () => {
    const started = await start({ once: true }, { refuse: () => 403 });
    const end = await within(started.done, 10_000, "run() to end");
    expect(end).toEqual({ kind: "unauthorized", status: 403, message: `the gateway refused the bridge token (HTTP 403: ${REFUSAL_MESSAGE})` });
    expect(started.stub.upgrades).toBe(1);
    expect(started.link.state).toBe("stopped");
  });

  it("with once, a drop ends run() after closing the children", async () => {
    const started = await start({ once: true });
    const conn = await ready(started);
    await openChannel(conn, "s/everything", "everything");
    const pid = await pidOf(started.events, "s/everything");
    conn.drop();
    const end = await within(started.done, 15_000, "run() to end");
    expect(end).toMatchObject({ kind: "disconnected", message: expect.stringContaining("the connection to the gateway closed") });
    expect(isAlive(pid)).toBe(false);
    expect(started.stub.upgrades).toBe(1);
  });

  it("a gateway that cannot be reached is retried; with once it ends run()", async () => {
    const stub = await startGatewayStub();
    const url = stub.url;
    await stub.close();
    const events = recorder<LinkEvent>();
    const link = new BridgeLink({ gateway: url, bridgeId: BRIDGE_ID, token: STUB_TOKEN, servers: SERVERS, clientVersion: VERSION, once: true, onEvent: (e) => events.push(e) });
    const end = await within(link.run(), 10_000, "run() to end");
    expect(end).toMatchObject({ kind: "disconnected", message: expect.stringMatching(/cannot connect to the gateway: .*ECONNREFUSED/) });
  });

  it("ends with `replaced` when the gateway hands the bridge id to another connection", async () => {
    const started = await start();
    const conn = await ready(started);
    conn.close(REPLACED_CLOSE_CODE, "replaced by a new connection");
    const end = await within(started.done, 10_000, "run() to end");
    expect(end).toMatchObject({ kind: "replaced", message: expect.stringContaining(`"${BRIDGE_ID}"`) });
    expect(started.stub.upgrades).toBe(1);
  });

  it("stop() closes the socket first, then every child, and run() ends as stopped", async () => {
    const started = await start();
    const conn = await ready(started);
    await openChannel(conn, "s/everything", "everything");
    const pid = await pidOf(started.events, "s/everything");
    await within(started.link.stop(), 10_000, "stop()");
    expect(await within(conn.closed, 5_000, "the socket to close")).toMatchObject({ code: 1001 });
    expect(isAlive(pid)).toBe(false);
    expect(await started.done).toEqual({ kind: "stopped" });
    // No closed frame could follow: the socket went first.
    expect(conn.frames.items.some((f) => f.type === "closed")).toBe(false);
  });
});
