/**
 * Soak: many sessions, many servers, many calls through one gateway and one bridge, and
 * what is left afterwards (issue 9, "Load"). Not part of CI; bounded in count and time,
 * loopback only, stops by itself.
 *
 *   npm run soak        (builds the Worker and the bridge, then runs this)
 *   SOAK_SESSIONS=5 SOAK_CALLS=1000 SOAK_LONG_MIN_S=6 SOAK_LONG_MAX_S=12 node bench/soak.mjs   (a quick run)
 *
 * Setup, all on 127.0.0.1: the built Worker (dist/index.js) on workerd via Miniflare's API
 * (its own socket into the Worker, as the other benchmarks serve it; never wrangler dev);
 * server-everything over Streamable HTTP; our small echo server (bench/echo-server.mjs);
 * ONE bridge CLI process (bridge/bin/mcp-edge-bridge.mjs) offering server-everything over
 * stdio and server-memory. SOAK_SESSIONS sessions, each with four servers: `everything`
 * (remote), `echo` (ours, remote), `stdio` (server-everything through the bridge) and
 * `memory` (server-memory through the bridge) — so the bridge runs two children per session.
 * `everything` and `stdio` get a request timeout of SOAK_REQUEST_TIMEOUT_MS (5 s).
 *
 * Load: SOAK_CALLS tool calls at SOAK_CONCURRENCY (closed loop), spread evenly over the
 * sessions and the four servers (two tools each: everything_echo/get-sum, echo_echo/reverse,
 * stdio_echo/get-sum, memory_search_nodes/open_nodes; every answer is checked), with one
 * `GET /tools` or `POST /tools/search` (alternately) after every SOAK_LIST_EVERY calls.
 * Alongside, SOAK_SUBSCRIBERS readers keep reading the event streams of the first sessions
 * (checking that event ids arrive once and in order, or inside a `gap`), and SOAK_LONG_CALLS
 * calls of `trigger-long-running-operation` on those sessions (remote and bridged
 * alternately), SOAK_LONG_CONCURRENCY at a time, lasting SOAK_LONG_MIN_S..SOAK_LONG_MAX_S
 * seconds with progress every SOAK_LONG_STEP_S: longer than the request timeout, so each one
 * only succeeds if progress resets it.
 *
 * Measured: calls/s, latency by server and operation, every failure (grouped), the resident
 * memory (/proc VmRSS) of the bridge process and of the gateway's workerd process every
 * SOAK_SAMPLE_S seconds with a least-squares slope over the load (workerd's RSS climbs
 * towards a plateau under any load, the pass-through floor's too: bench/floor-rss.mjs), the
 * gateway isolate's live JS heap after a forced GC (V8 inspector) after setup and at the
 * end of the load, the bridge's child
 * processes during the load, after the sessions are deleted and after the bridge is
 * stopped (every child it ever ran, by pid and start time), and the sessions deleted (each
 * then answers 404; our echo server says its upstream sessions were closed too).
 * Results: stdout and bench/results/soak.json. Exit status 1 when anything failed, leaked
 * or overran.
 *
 * Knobs (environment, all optional):
 *   SOAK_SESSIONS (50)  SOAK_CALLS (20000)  SOAK_CONCURRENCY (64)  SOAK_LIST_EVERY (10; 0: none)
 *   SOAK_SUBSCRIBERS (4)  SOAK_LONG_CALLS (8; 0: none)  SOAK_LONG_CONCURRENCY (4)
 *   SOAK_LONG_MIN_S (10)  SOAK_LONG_MAX_S (60)  SOAK_LONG_STEP_S (2)
 *   SOAK_REQUEST_TIMEOUT_MS (5000)  SOAK_SETUP_CONCURRENCY (4: sessions created at once)
 *   SOAK_SAMPLE_S (5)  SOAK_HTTP_TIMEOUT_MS (60000: the client's deadline per fast request)
 *   SOAK_DEADLINE_S (600: past it the load stops, the run is torn down and reported as failed)
 *   PEER_LOGS=1 (show the bridge's and the servers' output)
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { bridgeListed, cleanupStack, COMPAT, freePort, GATEWAY_SCRIPT, inspector, intEnv, printTable, root, startEverything, startGateway, waitForPort } from "./lib.mjs";
import { descendants, rssMiB, stillAlive, startPeer, whileAlive } from "./processes.mjs";
import { errorBook, figures, latencyBook, readEvents, slope } from "./soak-lib.mjs";

const RESULTS = `${root}bench/results/soak.json`;
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const MEMORY = `${root}node_modules/@modelcontextprotocol/server-memory/dist/index.js`;
const ECHO_SERVER = `${root}bench/echo-server.mjs`;
const BRIDGE_CLI = `${root}bridge/bin/mcp-edge-bridge.mjs`;
const BRIDGE_BUNDLE = `${root}bridge/dist/mcp-edge-bridge.mjs`;
const BRIDGE_ID = "soak";
const BRIDGE_TOKEN = "soak-bridge-token";

const SESSIONS = intEnv("SOAK_SESSIONS", 50);
const CALLS = intEnv("SOAK_CALLS", 20_000);
const CONCURRENCY = intEnv("SOAK_CONCURRENCY", 64);
const LIST_EVERY = intEnv("SOAK_LIST_EVERY", 10, 0);
const SUBSCRIBERS = Math.min(intEnv("SOAK_SUBSCRIBERS", 4, 0), SESSIONS);
const LONG_CALLS = intEnv("SOAK_LONG_CALLS", 8, 0);
const LONG_CONCURRENCY = intEnv("SOAK_LONG_CONCURRENCY", 4);
const LONG_MIN_S = intEnv("SOAK_LONG_MIN_S", 10);
const LONG_MAX_S = Math.max(LONG_MIN_S, intEnv("SOAK_LONG_MAX_S", 60));
const LONG_STEP_S = intEnv("SOAK_LONG_STEP_S", 2);
const REQUEST_TIMEOUT_MS = intEnv("SOAK_REQUEST_TIMEOUT_MS", 5000);
const SETUP_CONCURRENCY = intEnv("SOAK_SETUP_CONCURRENCY", 4);
const SAMPLE_S = intEnv("SOAK_SAMPLE_S", 5);
const HTTP_TIMEOUT_MS = intEnv("SOAK_HTTP_TIMEOUT_MS", 60_000);
const DEADLINE_S = intEnv("SOAK_DEADLINE_S", 600);
/** Startup timeout of every server: 100 node children starting on a busy machine take a while. */
const STARTUP_TIMEOUT_MS = 120_000;
/** How long the bridge's children may take to end after their sessions are deleted (stdin end, SIGTERM after 2 s, SIGKILL after 2 more). */
const CHILDREN_GONE_MS = 20_000;

/** The long-running tool proves progress resets the timeout only if it outlasts it. */
if (LONG_CALLS > 0 && LONG_MIN_S * 1000 <= REQUEST_TIMEOUT_MS) throw new Error("SOAK_LONG_MIN_S must be longer than SOAK_REQUEST_TIMEOUT_MS");
if (LONG_CALLS > 0 && LONG_STEP_S * 1000 >= REQUEST_TIMEOUT_MS) throw new Error("SOAK_LONG_STEP_S must be shorter than SOAK_REQUEST_TIMEOUT_MS");
if (LONG_CALLS > 0 && SUBSCRIBERS === 0) throw new Error("long calls run on the subscribed sessions: SOAK_SUBSCRIBERS must be ≥ 1");

/** Entities in server-memory's file: the bridged memory calls search and open them (read-only: 50 processes share the file). */
const MEMORY_ENTITIES = ["soak-entity-1", "soak-entity-2", "soak-entity-3"];

/** The fast calls: two tools per server, each answer checked. `i` makes every call's arguments distinct. */
const FAST_TOOLS = {
  everything: [
    { name: "everything_echo", args: (i) => ({ message: `m${i}` }), ok: (out, i) => out === `Echo: m${i}` },
    { name: "everything_get-sum", args: (i) => ({ a: i, b: 2 }), ok: (out, i) => out === `The sum of ${i} and 2 is ${i + 2}.` },
  ],
  echo: [
    { name: "echo_echo", args: (i) => ({ message: `m${i}` }), ok: (out, i) => out === `Echo: m${i}` },
    { name: "echo_reverse", args: (i) => ({ message: `ab${i}` }), ok: (out, i) => out === [...`ab${i}`].reverse().join("") },
  ],
  stdio: [
    { name: "stdio_echo", args: (i) => ({ message: `m${i}` }), ok: (out, i) => out === `Echo: m${i}` },
    { name: "stdio_get-sum", args: (i) => ({ a: i, b: 3 }), ok: (out, i) => out === `The sum of ${i} and 3 is ${i + 3}.` },
  ],
  memory: [
    { name: "memory_search_nodes", args: () => ({ query: "soak" }), ok: (out) => MEMORY_ENTITIES.every((e) => out.includes(`"${e}"`)) },
    {
      name: "memory_open_nodes",
      args: (i) => ({ names: [MEMORY_ENTITIES[i % MEMORY_ENTITIES.length]] }),
      ok: (out, i) => out.includes(`"${MEMORY_ENTITIES[i % MEMORY_ENTITIES.length]}"`),
    },
  ],
};
const SERVER_NAMES = Object.keys(FAST_TOOLS);
const SERVER_LABELS = { everything: "everything (HTTP)", echo: "echo (ours, HTTP)", stdio: "everything (bridged stdio)", memory: "memory (bridged stdio)" };
const LONG_TOOL = "trigger-long-running-operation";

function sessionBody(everythingUrl, echoUrl) {
  const timeouts = { startup: STARTUP_TIMEOUT_MS, request: REQUEST_TIMEOUT_MS };
  return {
    servers: {
      everything: { type: "remote", url: everythingUrl, timeout: timeouts },
      echo: { type: "remote", url: echoUrl, timeout: { startup: STARTUP_TIMEOUT_MS } },
      stdio: { type: "local", bridge: BRIDGE_ID, server: "everything", timeout: timeouts },
      memory: { type: "local", bridge: BRIDGE_ID, server: "memory", timeout: { startup: STARTUP_TIMEOUT_MS } },
    },
  };
}

/** Duration (s) of long call k: spread evenly from the shortest to the longest, longest first (so the load overlaps them). */
function longDuration(k) {
  if (LONG_CALLS === 1) return LONG_MAX_S;
  return Math.round(LONG_MAX_S - ((LONG_MAX_S - LONG_MIN_S) * k) / (LONG_CALLS - 1));
}

// ── HTTP ───────────────────────────────────────────────────────────────────

/** A JSON request to the gateway: status and parsed body (or the text when it is not JSON). */
async function api(url, { method = "GET", body, timeoutMs = HTTP_TIMEOUT_MS, signal }) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
  });
  const text = await response.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

/** What a failed answer says, short: status and error code and message, or the tool's output. */
function describe({ status, json, text }) {
  if (json?.error) return `HTTP ${status} ${json.error.code}: ${json.error.message}`;
  if (json?.isError) return `HTTP ${status} tool error: ${String(json.output).slice(0, 200)}`;
  return `HTTP ${status} unexpected answer: ${text.slice(0, 200)}`;
}

// ── Processes ──────────────────────────────────────────────────────────────

async function startEchoServer() {
  const port = await freePort();
  const peer = startPeer("echo-server", process.execPath, [ECHO_SERVER], { env: { ...process.env, PORT: String(port) } });
  try {
    await whileAlive(peer, waitForPort(port));
  } catch (error) {
    await peer.stop();
    throw error;
  }
  return { peer, url: `http://127.0.0.1:${port}/mcp`, stats: async () => (await api(`http://127.0.0.1:${port}/stats`, { signal: AbortSignal.timeout(5000) })).json };
}

function startBridge(gatewayUrl, config) {
  return startPeer("bridge", process.execPath, [BRIDGE_CLI, "--gateway", gatewayUrl, "--config", config, "--id", BRIDGE_ID], {
    env: { ...process.env, MCP_EDGE_BRIDGE_TOKEN: BRIDGE_TOKEN },
  });
}

/** Polls `check` (no sleeps as synchronisation elsewhere: this waits on processes we cannot observe otherwise). */
async function eventually(check, timeoutMs, everyMs = 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value.done || Date.now() > deadline) return value;
    await sleep(everyMs);
  }
}

// ── Main ───────────────────────────────────────────────────────────────────

async function main() {
  for (const [file, how] of [
    [GATEWAY_SCRIPT, "npm run build"],
    [BRIDGE_BUNDLE, "npm run build:bridge"],
  ]) {
    if (!existsSync(file)) throw new Error(`${file.slice(root.length)} is missing: run ${how} (npm run soak does both)`);
  }
  if (statSync(`${root}bridge/src/cli.ts`).mtimeMs > statSync(BRIDGE_BUNDLE).mtimeMs) console.warn("WARNING: bridge/src is newer than bridge/dist: npm run soak rebuilds it");

  const teardown = cleanupStack();
  const run = new AbortController();
  const t0 = performance.now();
  const wallStart = Date.now();
  // This process is the load generator and the event readers: its own stalls show up as late events.
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  const now = () => (performance.now() - t0) / 1000;
  let overrun = false;
  const deadline = setTimeout(() => {
    overrun = true;
    console.error(`soak: still running after SOAK_DEADLINE_S=${DEADLINE_S} s; stopping the load`);
    run.abort(new Error("deadline"));
    // The teardown gets a minute more, then everything goes.
    setTimeout(() => teardown.run().finally(() => process.exit(1)), 60_000).unref();
  }, DEADLINE_S * 1000);
  deadline.unref();

  const errors = errorBook();
  const fail = (kind, message) => {
    if (run.signal.aborted && overrun) return; // the deadline stopped it: counted once, below
    errors.add(kind, message, Number(now().toFixed(1)));
    if (errors.total <= 20) console.warn(`  ! ${kind}: ${String(message).slice(0, 200)}`);
  };

  const report = {
    date: new Date().toISOString(),
    settings: {
      sessions: SESSIONS,
      serversPerSession: SERVER_NAMES.length,
      calls: CALLS,
      concurrency: CONCURRENCY,
      listEvery: LIST_EVERY,
      subscribers: SUBSCRIBERS,
      longCalls: LONG_CALLS,
      longConcurrency: LONG_CONCURRENCY,
      longSeconds: [LONG_MIN_S, LONG_MAX_S],
      longStepSeconds: LONG_STEP_S,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      sampleSeconds: SAMPLE_S,
      deadlineSeconds: DEADLINE_S,
    },
    environment: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      loadAverageAtStart: (await import("node:os")).loadavg(),
      ...COMPAT,
    },
  };
  let exitCode = 0;

  try {
    // ── Peers ──
    const work = mkdtempSync(join(tmpdir(), "mcp-edge-soak-"));
    const removeWork = () => rmSync(work, { recursive: true, force: true });
    process.once("exit", removeWork);
    teardown.add(async () => removeWork());
    const memoryFile = join(work, "memory.jsonl");
    writeFileSync(memoryFile, MEMORY_ENTITIES.map((name) => JSON.stringify({ type: "entity", name, entityType: "soak", observations: [`${name} for the soak`] })).join("\n"));
    const config = join(work, "bridge.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
          memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
        },
      }),
    );

    const everything = await startEverything();
    teardown.add(() => everything.stop());
    const echo = await startEchoServer();
    teardown.add(() => echo.peer.stop());
    const inspectorPort = await freePort();
    const gateway = await startGateway({ BRIDGE_TOKENS: `local:${BRIDGE_TOKEN}` }, { inspectorPort });
    teardown.add(() => gateway.dispose());
    // The gateway's isolate (the Worker and its Durable Objects), for its live JS heap after a forced GC.
    const cdp = await inspector(`ws://127.0.0.1:${inspectorPort}/core:user:mcp-edge`);
    teardown.add(async () => cdp.close());
    const liveHeapMiB = async () => {
      try {
        await cdp.send("HeapProfiler.collectGarbage", {}, 15_000);
        return (await cdp.send("Runtime.getHeapUsage", {}, 15_000)).usedSize / 2 ** 20;
      } catch (error) {
        console.warn(`  (no heap figure: ${error.message})`);
        return undefined;
      }
    };
    const workerd = descendants(process.pid).filter((p) => p.comm === "workerd");
    if (workerd.length !== 1) throw new Error(`expected one workerd process, found ${workerd.length}`);
    const bridge = startBridge(gateway.url, config);
    teardown.add(async () => {
      await bridge.stop();
      bridge.sweep();
    });
    await whileAlive(bridge, bridgeListed(gateway.url, BRIDGE_ID, ["everything", "memory"]));
    const bridgePid = bridge.child.pid;

    // ── Memory and children, sampled ──
    /** Every process the bridge ran, by pid and start time, to check at the end that none outlived it. */
    const everSeen = new Map();
    const bridgeChildren = () => {
      const list = descendants(bridgePid);
      for (const p of list) everSeen.set(`${p.pid}:${p.start}`, p);
      return list;
    };
    const samples = [];
    let callsDone = 0;
    let phase = "started";
    const sample = (label = phase) => {
      const s = {
        atS: Number(now().toFixed(1)),
        phase: label,
        calls: callsDone,
        bridgeMiB: rssMiB(bridgePid),
        gatewayMiB: rssMiB(workerd[0].pid),
        bridgeChildren: bridgeChildren().length,
      };
      samples.push(s);
      return s;
    };
    sample("start");
    const sampler = setInterval(() => sample(), SAMPLE_S * 1000);
    teardown.add(async () => clearInterval(sampler));

    // ── Sessions ──
    phase = "setup";
    console.log(
      `soak: ${SESSIONS} sessions × ${SERVER_NAMES.length} servers, ${CALLS} calls at concurrency ${CONCURRENCY}` +
        `${LIST_EVERY ? `, a listing or search every ${LIST_EVERY} calls` : ""}, ${SUBSCRIBERS} event readers, ` +
        `${LONG_CALLS} long calls (${LONG_MIN_S}–${LONG_MAX_S} s, ${LONG_CONCURRENCY} at a time, request timeout ${REQUEST_TIMEOUT_MS} ms); ${cpus().length} CPUs`,
    );
    const body = sessionBody(everything.url, echo.url);
    const sessions = [];
    const setupStarted = performance.now();
    let nextSession = 0;
    await Promise.all(
      Array.from({ length: Math.min(SETUP_CONCURRENCY, SESSIONS) }, async () => {
        while (nextSession < SESSIONS && !run.signal.aborted) {
          nextSession++;
          const created = await api(`${gateway.url}/v1/sessions`, { method: "POST", body, timeoutMs: STARTUP_TIMEOUT_MS + 30_000, signal: run.signal });
          const notConnected = SERVER_NAMES.filter((name) => created.json?.servers?.[name]?.status !== "connected");
          if (created.status !== 201 || notConnected.length) {
            throw new Error(`creating a session failed (${notConnected.join(", ")} not connected): ${created.status} ${created.text.slice(0, 500)}`);
          }
          sessions.push(created.json.id);
        }
      }),
    );
    const setupS = (performance.now() - setupStarted) / 1000;
    const sessionUrl = (i) => `${gateway.url}/v1/sessions/${sessions[i]}`;
    const deleteSessions = async () => {
      // On any way out, the sessions go (and with them the bridge's children).
      await Promise.allSettled(sessions.map((_, i) => api(sessionUrl(i), { method: "DELETE", timeoutMs: 30_000, signal: AbortSignal.timeout(30_000) })));
    };
    teardown.add(deleteSessions);
    // Every session lists the same catalog; its size is what each GET /tools must answer.
    const firstList = await api(`${sessionUrl(0)}/tools`, { signal: run.signal });
    const toolCount = firstList.json?.tools?.length;
    if (!toolCount) throw new Error(`GET /tools answered no tools: ${describe(firstList)}`);
    report.setup = { sessions: sessions.length, seconds: setupS, toolsPerSession: toolCount, bridgeChildren: bridgeChildren().length };
    console.log(`  ${sessions.length} sessions in ${setupS.toFixed(1)} s, ${toolCount} tools each, ${report.setup.bridgeChildren} bridged children`);
    sample("sessions created");
    const heapAfterSetup = await liveHeapMiB();

    // ── Event readers ──
    const readers = new AbortController();
    teardown.add(async () => readers.abort());
    const subscriptions = await Promise.all(
      Array.from({ length: SUBSCRIBERS }, (_, i) =>
        new Promise((opened) => {
          const done = readEvents(`${sessionUrl(i)}/events`, readers.signal, { onOpen: () => opened({ done }) });
          done.then(() => opened({ done }));
        }),
      ),
    );

    // ── Load ──
    phase = "load";
    const latency = latencyBook();
    const listOps = LIST_EVERY ? Math.floor(CALLS / LIST_EVERY) : 0;
    const totalOps = CALLS + listOps;
    let nextOp = 0;
    let listsDone = 0;
    const loadStarted = performance.now();
    const timed = async (kind, work) => {
      const started = performance.now();
      const ok = await work();
      if (ok) latency.add(kind, performance.now() - started);
    };
    const fastCall = async (i) => {
      const session = i % SESSIONS;
      const server = SERVER_NAMES[Math.floor(i / SESSIONS) % SERVER_NAMES.length];
      const tool = FAST_TOOLS[server][Math.floor(i / (SESSIONS * SERVER_NAMES.length)) % 2];
      await timed(server, async () => {
        try {
          const answer = await api(`${sessionUrl(session)}/tools/call`, { method: "POST", body: { name: tool.name, arguments: tool.args(i) }, signal: run.signal });
          if (answer.status === 200 && answer.json?.isError === false && tool.ok(answer.json.output, i)) return true;
          fail(`tools/call ${tool.name}`, describe(answer));
        } catch (error) {
          fail(`tools/call ${tool.name}`, error?.message ?? error);
        }
        return false;
      });
      callsDone++;
    };
    const listing = async (k) => {
      const session = k % SESSIONS;
      const search = k % 2 === 1;
      await timed(search ? "search" : "tools", async () => {
        try {
          if (search) {
            const answer = await api(`${sessionUrl(session)}/tools/search`, { method: "POST", body: { query: "echo the message back", limit: 5 }, signal: run.signal });
            if (answer.status === 200 && answer.json?.results?.some((r) => r.name.endsWith("_echo"))) return true;
            fail("POST /tools/search", describe(answer));
          } else {
            const answer = await api(`${sessionUrl(session)}/tools`, { signal: run.signal });
            if (answer.status === 200 && answer.json?.tools?.length === toolCount) return true;
            fail("GET /tools", answer.status === 200 ? `${answer.json?.tools?.length} tools, not ${toolCount}` : describe(answer));
          }
        } catch (error) {
          fail(search ? "POST /tools/search" : "GET /tools", error?.message ?? error);
        }
        return false;
      });
      listsDone++;
    };
    const fastLoad = Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, totalOps) }, async () => {
        for (;;) {
          const op = nextOp++;
          if (op >= totalOps || run.signal.aborted) return;
          // Op j is a listing when it is the (LIST_EVERY+1)-th of its group.
          const group = LIST_EVERY + 1;
          if (LIST_EVERY && op % group === LIST_EVERY && Math.floor(op / group) < listOps) await listing(Math.floor(op / group));
          else await fastCall(op - Math.min(listOps, Math.floor(op / group)));
        }
      }),
    ).then(() => (performance.now() - loadStarted) / 1000);

    // Long calls on the subscribed sessions: remote and bridged server-everything alternately.
    const longResults = [];
    let nextLong = 0;
    const longLoad = Promise.all(
      Array.from({ length: Math.min(LONG_CONCURRENCY, LONG_CALLS) }, async () => {
        for (;;) {
          const k = nextLong++;
          if (k >= LONG_CALLS || run.signal.aborted) return;
          const duration = longDuration(k);
          const steps = Math.ceil(duration / LONG_STEP_S);
          const server = k % 2 === 0 ? "everything" : "stdio";
          const session = k % SUBSCRIBERS;
          const name = `${server}_${LONG_TOOL}`;
          const startedAtS = now();
          const result = { k, server, session, duration, steps, startedAtS: Number(startedAtS.toFixed(1)) };
          try {
            const answer = await api(`${sessionUrl(session)}/tools/call`, {
              method: "POST",
              body: { name, arguments: { duration, steps } },
              timeoutMs: duration * 1000 + 120_000,
              signal: run.signal,
            });
            result.ok = answer.status === 200 && answer.json?.isError === false && String(answer.json.output).startsWith("Long running operation completed");
            if (!result.ok) {
              result.error = describe(answer);
              fail(`tools/call ${name}`, `${duration} s: ${result.error}`);
            }
          } catch (error) {
            result.ok = false;
            result.error = error?.message ?? String(error);
            fail(`tools/call ${name}`, `${duration} s: ${result.error}`);
          }
          result.seconds = Number((now() - startedAtS).toFixed(1));
          longResults.push(result);
        }
      }),
    ).then(() => (performance.now() - loadStarted) / 1000);

    const [fastS, longS] = await Promise.all([fastLoad, longLoad]);
    phase = "after load";
    const afterLoad = sample("end of load");
    const heapAfterLoad = await liveHeapMiB();
    const loadS = Math.max(fastS, longS);
    report.load = {
      seconds: fastS,
      callsAttempted: callsDone,
      callsPerSec: callsDone / fastS,
      listings: listsDone,
      opsPerSec: (callsDone + listsDone) / fastS,
      latencyMs: {
        calls: latency.summary(SERVER_NAMES),
        ...Object.fromEntries(SERVER_NAMES.map((s) => [s, latency.summary([s])])),
        tools: latency.summary(["tools"]),
        search: latency.summary(["search"]),
      },
    };
    console.log(`  load: ${callsDone} calls + ${listsDone} listings in ${fastS.toFixed(1)} s; long calls done after ${longS.toFixed(1)} s`);

    // ── Teardown, measured ──
    const upstreamBefore = await echo.stats().catch(() => undefined);
    const deleteStarted = performance.now();
    const deletes = await Promise.all(sessions.map((_, i) => api(sessionUrl(i), { method: "DELETE", signal: AbortSignal.timeout(60_000) }).catch((e) => ({ status: 0, text: e.message }))));
    const deleted = deletes.filter((d) => d.status === 204).length;
    for (const d of deletes) if (d.status !== 204) fail("DELETE session", describe({ json: undefined, ...d }));
    const gone = await Promise.all(sessions.map((_, i) => api(sessionUrl(i), { signal: AbortSignal.timeout(30_000) }).catch(() => ({ status: 0 }))));
    const answered404 = gone.filter((g) => g.status === 404).length;
    if (answered404 !== sessions.length) fail("GET deleted session", `${sessions.length - answered404} deleted sessions did not answer 404`);
    const childrenGone = await eventually(() => {
      const left = bridgeChildren();
      return { done: left.length === 0, left };
    }, CHILDREN_GONE_MS);
    const childrenGoneS = (performance.now() - deleteStarted) / 1000;
    const upstreamAfter = await eventually(async () => {
      const stats = await echo.stats().catch(() => undefined);
      return { done: stats?.open === 0, stats };
    }, 10_000);
    const afterDelete = sample("sessions deleted");
    clearInterval(sampler);

    // The readers' streams end with their sessions.
    const streams = await Promise.race([Promise.all(subscriptions.map((s) => s.done)), sleep(10_000).then(() => undefined)]);
    readers.abort();
    const readerStats = streams ?? (await Promise.all(subscriptions.map((s) => s.done)));

    // Stop the bridge and look for anything it ever started that is still alive.
    const beforeStop = bridgeChildren();
    await bridge.stop({ sweep: false });
    const outlived = stillAlive([...everSeen.values()]);
    bridge.sweep();
    report.children = {
      everStarted: everSeen.size,
      duringLoad: afterLoad.bridgeChildren,
      afterSessionsDeleted: childrenGone.left.length,
      secondsUntilNone: childrenGone.done ? childrenGoneS : undefined,
      beforeBridgeStop: beforeStop.length,
      aliveAfterBridgeStop: outlived.length,
      ...(outlived.length ? { outlived: outlived.map((p) => `${p.pid} ${p.comm}`) } : {}),
    };
    if (childrenGone.left.length) fail("bridge children", `${childrenGone.left.length} children still running ${CHILDREN_GONE_MS / 1000} s after their sessions were deleted`);
    if (outlived.length) fail("bridge children", `${outlived.length} processes outlived the bridge: ${report.children.outlived.join(", ")}`);
    report.sessions = {
      created: sessions.length,
      deleted,
      answer404AfterDelete: answered404,
      upstreamEchoSessionsOpen: { beforeDelete: upstreamBefore?.open, afterDelete: upstreamAfter.stats?.open },
    };
    if (upstreamAfter.stats?.open !== 0) fail("upstream sessions", `our echo server still holds ${upstreamAfter.stats?.open} sessions after the gateway sessions were deleted`);

    // ── Long calls against what the event stream saw ──
    const longSeen = readerStats.flatMap((stats, session) =>
      [...stats.calls.entries()]
        .filter(([, c]) => c.name?.endsWith(`_${LONG_TOOL}`))
        .map(([callId, c]) => {
          const gaps = c.atMs.slice(1).map((t, j) => t - c.atMs[j]);
          return {
            session,
            callId,
            name: c.name,
            progressEvents: c.progress,
            maxProgressGapS: gaps.length ? Math.max(...gaps) / 1000 : undefined,
            progressAtS: c.atMs.map((t) => Number(((t - wallStart) / 1000).toFixed(2))),
            finished: c.finished,
          };
        }),
    );
    const fastOverlapS = (r) => Math.max(0, Math.min(r.startedAtS + r.seconds, fastS + (loadStarted - t0) / 1000) - Math.max(r.startedAtS, (loadStarted - t0) / 1000));
    report.long = {
      calls: longResults.length,
      ok: longResults.filter((r) => r.ok).length,
      seconds: longS,
      results: longResults.sort((a, b) => a.k - b.k).map((r) => ({ ...r, overlapWithFastLoadS: Number(fastOverlapS(r).toFixed(1)) })),
      seenOnEventStream: longSeen,
    };
    report.events = readerStats.map((s, session) => ({
      session,
      opened: s.opened,
      endedWithSession: s.endedByServer,
      error: s.error,
      events: s.events,
      byType: s.byType,
      missedInGaps: s.missedInGaps,
      outOfOrder: s.outOfOrder,
    }));
    for (const s of report.events) {
      if (!s.opened || s.error) fail("event stream", `session ${s.session}: ${s.error ?? "never opened"}`);
      if (s.outOfOrder) fail("event stream", `session ${s.session}: ${s.outOfOrder} events out of order`);
    }

    // ── Memory ──
    const loadSamples = samples.filter((s) => s.phase === "load" || s.phase === "end of load" || s.phase === "sessions created");
    const trend = (key) => {
      const pts = loadSamples.filter((s) => s[key] !== undefined).map((s) => ({ x: s.atS / 60, y: s[key] }));
      const perMin = slope(pts);
      const lateHalf = slope(pts.slice(Math.floor(pts.length / 2)));
      const mean = pts.reduce((a, p) => a + p.y, 0) / pts.length;
      const first = samples.find((s) => s.phase === "start")?.[key];
      return {
        startMiB: first,
        afterSetupMiB: samples.find((s) => s.phase === "sessions created")?.[key],
        endOfLoadMiB: afterLoad[key],
        afterDeleteMiB: afterDelete[key],
        peakMiB: Math.max(...samples.map((s) => s[key] ?? 0)),
        slopeMiBPerMinDuringLoad: perMin,
        slopePercentOfMeanPerMin: perMin === undefined ? undefined : (100 * perMin) / mean,
        slopeMiBPerMinSecondHalfOfLoad: lateHalf,
      };
    };
    report.memory = {
      bridge: trend("bridgeMiB"),
      gateway: { ...trend("gatewayMiB"), liveJsHeapMiB: { afterSetup: heapAfterSetup, endOfLoad: heapAfterLoad } },
      samples,
    };
    loopDelay.disable();
    report.loadGeneratorEventLoopDelayMs = { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
    report.errors = { total: errors.total, groups: errors.list() };
    report.overrun = overrun;

    // ── Print ──
    const fmt = (n, d = 1) => (n === undefined ? "-" : n.toFixed(d));
    const table = {};
    const row = (label, f, count) => (table[label] = { [`c${CONCURRENCY}`]: { ...f, callsPerSec: count / fastS } });
    row("all tool calls", report.load.latencyMs.calls, report.load.latencyMs.calls.count ?? 0);
    for (const s of SERVER_NAMES) row(SERVER_LABELS[s], report.load.latencyMs[s], report.load.latencyMs[s].count ?? 0);
    if (listOps) {
      row("GET /tools", report.load.latencyMs.tools, report.load.latencyMs.tools.count ?? 0);
      row("POST /tools/search", report.load.latencyMs.search, report.load.latencyMs.search.count ?? 0);
    }
    const names = Object.keys(table).filter((n) => table[n][`c${CONCURRENCY}`].count);
    printTable(table, names, [CONCURRENCY]);
    console.log(`\nmemory (RSS MiB)   start  setup  load-end  deleted  peak  slope during load (its second half)`);
    for (const [label, m] of [["bridge process", report.memory.bridge], ["gateway (workerd)", report.memory.gateway]]) {
      console.log(
        `${label.padEnd(18)}${fmt(m.startMiB).padStart(6)}${fmt(m.afterSetupMiB).padStart(7)}${fmt(m.endOfLoadMiB).padStart(10)}${fmt(m.afterDeleteMiB).padStart(9)}${fmt(m.peakMiB).padStart(6)}` +
          `  ${fmt(m.slopeMiBPerMinDuringLoad, 2)} MiB/min = ${fmt(m.slopePercentOfMeanPerMin, 2)}% of the mean per minute (${fmt(m.slopeMiBPerMinSecondHalfOfLoad, 2)} MiB/min)`,
      );
    }
    console.log(`gateway live JS heap after a forced GC: ${fmt(heapAfterSetup)} MiB after setup, ${fmt(heapAfterLoad)} MiB at the end of the load`);
    console.log(`samples (s: bridge / gateway MiB, children): ${samples.map((s) => `${s.atS}: ${fmt(s.bridgeMiB, 0)}/${fmt(s.gatewayMiB, 0)}, ${s.bridgeChildren}`).join("; ")}`);
    console.log(
      `\nlong calls: ${report.long.ok}/${report.long.calls} completed (${longResults.map((r) => `${r.server} ${r.duration} s${r.ok ? "" : " FAILED"}`).join(", ")}); ` +
        `on the event streams ${longSeen.filter((c) => c.finished && !c.finished.isError).length}/${longSeen.length} finished ok, ` +
        `progress events per call ${Math.min(...longSeen.map((c) => c.progressEvents))}–${Math.max(...longSeen.map((c) => c.progressEvents))}, ` +
        `longest gap between progress ${fmt(Math.max(...longSeen.map((c) => c.maxProgressGapS ?? 0)), 1)} s as the readers saw them (request timeout ${REQUEST_TIMEOUT_MS / 1000} s; ` +
        `this process's event loop stalled up to ${fmt(report.loadGeneratorEventLoopDelayMs.max / 1000, 1)} s)`,
    );
    console.log(
      `event readers: ${report.events.map((e) => `${e.events} events${e.missedInGaps ? ` (${e.missedInGaps} in gaps)` : ""}${e.outOfOrder ? ` ${e.outOfOrder} OUT OF ORDER` : ""}${e.endedWithSession ? "" : " (did not end with its session)"}`).join("; ")}`,
    );
    console.log(
      `children of the bridge: ${report.children.duringLoad} during the load, ${report.children.afterSessionsDeleted} after the sessions were deleted` +
        `${report.children.secondsUntilNone !== undefined ? ` (none left after ${fmt(report.children.secondsUntilNone)} s)` : ""}, ` +
        `${report.children.aliveAfterBridgeStop} of the ${report.children.everStarted} it ever ran alive after it stopped`,
    );
    console.log(
      `sessions: ${report.sessions.created} created, ${report.sessions.deleted} deleted, ${report.sessions.answer404AfterDelete} answer 404 after; ` +
        `our echo server's upstream sessions ${report.sessions.upstreamEchoSessionsOpen.beforeDelete} → ${report.sessions.upstreamEchoSessionsOpen.afterDelete}`,
    );
    console.log(`errors: ${errors.total}${errors.total ? "" : " (target 0)"}`);
    for (const g of errors.list()) console.log(`  ${String(g.count).padStart(5)} × ${g.kind}: ${g.message} (at ${g.firstAtS}–${g.lastAtS} s)`);
    if (overrun) console.log(`DEADLINE: the run was stopped after ${DEADLINE_S} s`);
    if (errors.total || overrun) exitCode = 1;
    await mkdir(new URL("results/", import.meta.url), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nwrote ${RESULTS.slice(root.length)}; total ${now().toFixed(0)} s (load ${loadS.toFixed(0)} s)`);
  } catch (error) {
    if (!overrun) console.error("soak failed:", error?.stack ?? error);
    else console.error("soak stopped by its deadline:", error?.message ?? error);
    exitCode = 1;
  } finally {
    run.abort();
    await teardown.run();
  }
  process.exit(exitCode);
}

await main();
