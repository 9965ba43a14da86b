/**
 * Shared pieces of the benchmark scripts: the upstream MCP server as a child process,
 * the gateway bundle and the pass-through Worker on workerd (via Miniflare), and small
 * raw-fetch clients for the three paths. Plain Node (no TypeScript), loopback only.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { performance } from "node:perf_hooks";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";

export const root = fileURLToPath(new URL("..", import.meta.url));
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
/** The built gateway bundle; BENCH_GATEWAY_SCRIPT points at another build (to compare a change). */
export const GATEWAY_SCRIPT = process.env.BENCH_GATEWAY_SCRIPT || `${root}dist/index.js`;
const PASSTHROUGH_SCRIPT = `${root}bench/passthrough-worker.mjs`;

/** The Worker's compatibility settings, read from wrangler.toml so the bench runs what deploys. */
export const COMPAT = wranglerCompat();

function wranglerCompat() {
  const toml = readFileSync(`${root}wrangler.toml`, "utf8");
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1];
  if (!date) throw new Error("wrangler.toml has no compatibility_date");
  return { compatibilityDate: date, compatibilityFlags: flags ? [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]) : [] };
}
/**
 * The protocol version the raw clients (direct, floor) ask for: by default the one the
 * gateway's SDK client asks for, so the server does the same work on every path. It
 * matters: from 2025-11-25 server-everything writes an SSE priming event before each
 * answer, and its HTTP adapter (@hono/node-server) then waits a setTimeout before
 * sending the headers, about 1.3 ms per call at c=1 (idle time, not CPU).
 * BENCH_PROTOCOL_VERSION=2025-06-18 shows the raw paths without it (the gateway keeps
 * its SDK's version, so gateway ratios are then unfair).
 */
export const PROTOCOL_VERSION = process.env.BENCH_PROTOCOL_VERSION || LATEST_PROTOCOL_VERSION;

/** Deadline (ms) for every single benchmark request. */
let timeoutMs = 30_000;
export function setRequestTimeout(ms) {
  timeoutMs = ms;
}
const signal = () => AbortSignal.timeout(timeoutMs);

// ── Processes and ports ────────────────────────────────────────────────────

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function waitForPort(port, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startEverything() {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", process.env.PEER_LOGS ? "inherit" : "ignore", process.env.PEER_LOGS ? "inherit" : "ignore"],
  });
  const exited = new Promise((_, reject) => child.once("exit", (code) => reject(new Error(`server-everything exited (${code})`))));
  exited.catch(() => undefined);
  // However this process ends (Miniflare's own signal hook exits it on Ctrl-C), the server goes too.
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  child.once("exit", () => process.removeListener("exit", killOnExit));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill("SIGTERM");
    });
  };
  try {
    await Promise.race([waitForPort(port), exited]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}/mcp`, child, stop };
}

/** Waits for Miniflare instances to listen; disposes all of them if one fails to start. */
async function ready(...instances) {
  try {
    return await Promise.all(instances.map((mf) => mf.ready));
  } catch (error) {
    await Promise.allSettled(instances.map((mf) => mf.dispose()));
    throw error;
  }
}

/**
 * The built Worker's modules: index.js and the .wasm files it imports (code mode's QuickJS),
 * which wrangler writes beside it. Miniflare's `modules: true` would load index.js alone.
 */
export function bundleModules(script) {
  const source = readFileSync(script, "utf8");
  const wasm = readdirSync(dirname(script)).filter((name) => name.endsWith(".wasm") && source.includes(`"./${name}"`));
  return [{ type: "ESModule", path: script }, ...wasm.map((name) => ({ type: "CompiledWasm", path: join(dirname(script), name) }))];
}

export function gatewayWorker(extra = {}, { name = "mcp-edge", script = GATEWAY_SCRIPT } = {}) {
  return {
    name,
    modules: true,
    modules: bundleModules(script),
    modulesRoot: dirname(script),
    ...COMPAT,
    durableObjects: {
      SESSIONS: { className: "SessionObject", useSQLite: true },
      BRIDGES: { className: "BridgeHub", useSQLite: true },
      CREDENTIALS: { className: "CredentialVault", useSQLite: true },
    },
    kvNamespaces: ["CATALOG", "OAUTH_KV"],
    bindings: {
      ALLOW_PRIVATE_URLS: "true",
      AUTH_MODE: "local-dev",
      MCP_SERVERS: "{}",
      BRIDGE_TOKENS: process.env.BRIDGE_TOKENS ?? "",
      CREDENTIALS_KEY: "bench-credentials-key-0123456789abcdef",
    },
    ...extra,
  };
}

export function passthroughWorker(upstreamUrl, extra = {}) {
  return {
    name: "passthrough",
    modules: true,
    scriptPath: PASSTHROUGH_SCRIPT,
    ...COMPAT,
    durableObjects: { PASSTHROUGH: { className: "PassThrough", useSQLite: true } },
    bindings: { UPSTREAM_URL: upstreamUrl },
    ...extra,
  };
}

/**
 * The gateway bundle and the pass-through Worker on workerd. By default one workerd
 * serves both, each on its own loopback socket straight into the Worker (as the edge
 * hands a request to a Worker). `entry: "miniflare"` instead runs one Miniflare per
 * Worker and goes through Miniflare's entry worker (one more hop on both paths).
 */
export async function startWorkers(upstreamUrl, { entry = "direct", inspectorPort, compare = [] } = {}) {
  const inspector = inspectorPort ? { inspectorPort } : {};
  if (entry === "direct") {
    const [entryPort, gatewayPort, floorPort, ...comparePorts] = await Promise.all([freePort(), freePort(), freePort(), ...compare.map(freePort)]);
    const socket = (port) => ({ unsafeDirectSockets: [{ host: "127.0.0.1", port }] });
    const mf = new Miniflare(
      convertV4MiniflareOptions({
        host: "127.0.0.1",
        port: entryPort,
        ...inspector,
        workers: [
          gatewayWorker(socket(gatewayPort)),
          passthroughWorker(upstreamUrl, socket(floorPort)),
          // Other builds of the gateway, side by side in the same workerd.
          ...compare.map((script, i) => gatewayWorker(socket(comparePorts[i]), { name: `mcp-edge-compare-${i + 1}`, script })),
        ],
      }),
    );
    await ready(mf);
    return {
      gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
      floorUrl: `http://127.0.0.1:${floorPort}`,
      compareUrls: comparePorts.map((port) => `http://127.0.0.1:${port}`),
      dispose: () => mf.dispose(),
    };
  }
  if (compare.length) throw new Error("comparing gateway builds needs the direct entry");
  const [gatewayPort, floorPort] = await Promise.all([freePort(), freePort()]);
  const gateway = new Miniflare(convertV4MiniflareOptions({ host: "127.0.0.1", port: gatewayPort, ...inspector, ...gatewayWorker() }));
  const floor = new Miniflare(convertV4MiniflareOptions({ host: "127.0.0.1", port: floorPort, ...passthroughWorker(upstreamUrl) }));
  const [gatewayUrl, floorUrl] = await ready(gateway, floor);
  return {
    gatewayUrl: gatewayUrl.origin,
    floorUrl: floorUrl.origin,
    dispose: () => Promise.all([gateway.dispose(), floor.dispose()]),
  };
}

/**
 * The gateway alone on workerd, on its own loopback socket straight into the Worker (as
 * startWorkers serves it). `bindings` are added to gatewayWorker's, e.g. BRIDGE_TOKENS;
 * with `inspectorPort`, the V8 inspector listens there (see `inspector`).
 */
export async function startGateway(bindings = {}, { inspectorPort } = {}) {
  const [entryPort, gatewayPort] = [await freePort(), await freePort()];
  const base = gatewayWorker();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: entryPort,
      ...(inspectorPort ? { inspectorPort } : {}),
      workers: [gatewayWorker({ unsafeDirectSockets: [{ host: "127.0.0.1", port: gatewayPort }], bindings: { ...base.bindings, ...bindings } })],
    }),
  );
  await ready(mf);
  return { url: `http://127.0.0.1:${gatewayPort}`, dispose: () => mf.dispose() };
}

/** Waits until the gateway lists bridge `id` offering every server of `servers`. */
export async function bridgeListed(gatewayUrl, id, servers, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${gatewayUrl}/v1/bridges`, { signal: AbortSignal.timeout(5000) });
    const body = await res.json();
    const offered = body.bridges?.find((b) => b.id === id)?.servers?.map((s) => s.name) ?? [];
    if (servers.every((name) => offered.includes(name))) return;
    if (Date.now() > deadline) throw new Error(`bridge ${id} is not listed with ${servers.join(", ")} after ${timeoutMs} ms: ${JSON.stringify(body).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A minimal Chrome DevTools Protocol client over the global WebSocket, e.g. for the
 * gateway's isolate: `ws://127.0.0.1:<inspectorPort>/core:user:mcp-edge`.
 */
export async function inspector(url) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot open ${url}`)), { once: true });
  });
  let nextId = 1;
  const pending = new Map();
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
    else waiter.resolve(message.result);
  });
  return {
    send(method, params = {}, timeoutMs = 60_000) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no answer`));
        }, timeoutMs);
        pending.set(id, {
          method,
          resolve: (v) => (clearTimeout(timer), resolve(v)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => ws.close(),
  };
}

// ── HTTP and MCP over raw fetch ────────────────────────────────────────────

/** Reads a JSON-RPC answer from a JSON or SSE body; consumes the whole body. */
export async function readRpc(response, id) {
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream")) {
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      if (!data) continue;
      const message = JSON.parse(data);
      if (message.id === id && ("result" in message || "error" in message)) return message;
    }
    throw new Error(`no answer to request ${id} in SSE body: ${text.slice(0, 300)}`);
  }
  if (type.includes("application/json")) {
    const message = JSON.parse(text);
    if (message.id === id) return message;
  }
  throw new Error(`unexpected ${response.status} ${type} answer: ${text.slice(0, 300)}`);
}

/**
 * A Streamable HTTP MCP client in a few lines: initialize, notifications/initialized,
 * then `call()` sends tools/call echo. `url` is the MCP endpoint (the server itself or
 * the pass-through).
 */
export async function mcpClient(url) {
  const base = { accept: "application/json, text/event-stream", "content-type": "application/json" };
  const init = await fetch(url, {
    method: "POST",
    headers: base,
    signal: signal(),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "mcp-edge-bench", version: "0.1.0" } },
    }),
  });
  const sessionId = init.headers.get("mcp-session-id");
  const initialized = await readRpc(init, 0);
  if (!init.ok || initialized.error || !sessionId) throw new Error(`initialize failed: ${init.status} ${JSON.stringify(initialized)}`);
  const version = initialized.result.protocolVersion;
  if (version !== PROTOCOL_VERSION) throw new Error(`the server answered protocol ${version}, not ${PROTOCOL_VERSION}`);
  const headers = { ...base, "mcp-session-id": sessionId, "mcp-protocol-version": version };
  const note = await fetch(url, {
    method: "POST",
    headers,
    signal: signal(),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await note.arrayBuffer();
  if (note.status !== 202) throw new Error(`notifications/initialized: HTTP ${note.status}`);

  let nextId = 1;
  return {
    sessionId,
    async call(message) {
      const id = nextId++;
      const response = await fetch(url, {
        method: "POST",
        headers,
        signal: signal(),
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { message } } }),
      });
      const answer = await readRpc(response, id);
      const text = answer.result?.content?.[0]?.text;
      if (!response.ok || text !== `Echo: ${message}`) throw new Error(`tools/call failed: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
    },
    async close() {
      const response = await fetch(url, { method: "DELETE", headers, signal: signal() }).catch(() => undefined);
      await response?.arrayBuffer().catch(() => undefined);
    },
  };
}

export async function gatewayClient(gatewayUrl, upstreamUrl) {
  return gatewaySessionClient(gatewayUrl, { type: "remote", url: upstreamUrl });
}

/**
 * Like gatewayClient, for any server config as the session API takes it (named
 * "everything" in the session, so its echo tool is `everything_echo`), e.g. a bridged
 * one: `{ type: "local", bridge, server }`.
 */
export async function gatewaySessionClient(gatewayUrl, server) {
  const created = await fetch(`${gatewayUrl}/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    signal: signal(),
    body: JSON.stringify({ servers: { everything: server } }),
  });
  const body = await created.json();
  if (created.status !== 201 || body.servers?.everything?.status !== "connected") {
    throw new Error(`creating the gateway session failed: ${created.status} ${JSON.stringify(body)}`);
  }
  const callUrl = `${gatewayUrl}/v1/sessions/${body.id}/tools/call`;
  return {
    sessionId: body.id,
    async call(message) {
      const response = await fetch(callUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        signal: signal(),
        body: JSON.stringify({ name: "everything_echo", arguments: { message } }),
      });
      const text = await response.text();
      let output;
      try {
        output = JSON.parse(text).output;
      } catch {
        output = undefined;
      }
      if (response.status !== 200 || output !== `Echo: ${message}`) throw new Error(`gateway tools/call failed: ${response.status} ${text.slice(0, 300)}`);
    },
    async close() {
      const response = await fetch(`${gatewayUrl}/v1/sessions/${body.id}`, { method: "DELETE", signal: signal() }).catch(() => undefined);
      await response?.arrayBuffer().catch(() => undefined);
    },
  };
}

// ── Measurement ────────────────────────────────────────────────────────────

/**
 * Runs `total` calls, `concurrency` at a time (closed loop). Returns the latency (ms) of
 * each call that succeeded (a `call` that resolves to `false` failed: not timed) and the
 * wall time.
 */
export async function runCalls(call, total, concurrency, tag) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t0 = performance.now();
        const ok = await call(`${tag}${i}`);
        if (ok !== false) latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, attempted: total, elapsedMs: performance.now() - started };
}

/** Figures for one path at one concurrency from its chunks (latencies pooled, wall time summed). */
export function summarize(chunks, concurrency) {
  const all = Float64Array.from(chunks.flatMap((c) => c.latencies)).sort();
  const total = all.length;
  const elapsedMs = chunks.reduce((t, c) => t + c.elapsedMs, 0);
  return {
    calls: total,
    concurrency,
    p50: percentile(all, 0.5),
    p90: percentile(all, 0.9),
    p99: percentile(all, 0.99),
    mean: all.reduce((a, b) => a + b, 0) / total,
    max: all[total - 1],
    callsPerSec: total / (elapsedMs / 1000),
    elapsedMs,
    // Per chunk, in run order: a trend across chunks means the run was not steady.
    chunks: chunks.map((c) => ({
      p50: percentile(Float64Array.from(c.latencies).sort(), 0.5),
      callsPerSec: c.latencies.length / (c.elapsedMs / 1000),
    })),
  };
}

/** Nearest-rank percentile of a sorted array. */
export function percentile(sorted, p) {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

// ── Knobs and report ───────────────────────────────────────────────────────

/** An integer knob from the environment, with a floor. */
export function intEnv(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number.parseInt(raw, 10);
  if (!(n >= min)) throw new Error(`${name} must be an integer >= ${min}`);
  return n;
}

const fmt = (n, d = 2) => n.toFixed(d);
const pad = (s, n) => String(s).padStart(n);

/** Prints p50/p90/p99/mean/calls-per-second per path and concurrency; `label` names a path. */
export function printTable(results, names, concurrency, label = (name) => name) {
  const width = Math.max(10, ...names.map((n) => label(n).length + 2));
  console.log(`\n${"path".padEnd(width)}${pad("c", 3)}${pad("p50 ms", 9)}${pad("p90 ms", 9)}${pad("p99 ms", 9)}${pad("mean ms", 9)}${pad("calls/s", 9)}`);
  for (const c of concurrency) {
    for (const name of names) {
      const r = results[name][`c${c}`];
      console.log(
        `${label(name).padEnd(width)}${pad(c, 3)}${pad(fmt(r.p50), 9)}${pad(fmt(r.p90), 9)}${pad(fmt(r.p99), 9)}${pad(fmt(r.mean), 9)}${pad(fmt(r.callsPerSec, 0), 9)}`,
      );
    }
  }
}

/**
 * Teardown for a benchmark run: `add` registers a cleanup; `run` runs them once, in reverse
 * order, whether the run ends, fails or is interrupted (SIGINT/SIGTERM exit 130 after it).
 */
export function cleanupStack() {
  const cleanups = [];
  let cleaning;
  const run = () =>
    (cleaning ??= (async () => {
      while (cleanups.length) await cleanups.pop()().catch((e) => console.error("cleanup:", e?.message ?? e));
    })());
  const onSignal = () => {
    run().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return { add: (fn) => cleanups.push(fn), run };
}
