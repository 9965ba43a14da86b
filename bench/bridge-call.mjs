/**
 * Bridged tools/call benchmark: a stdio MCP server reached through mcp-edge's bridge vs
 * the same server called directly over stdio, and vs supergateway (stdio → Streamable
 * HTTP, stateful) as an outside anchor.
 *
 *   npm run build && npm run build:bridge && node bench/bridge-call.mjs
 *   (`npm run bench` runs bench/tools-call.mjs and then this)
 *
 * Everything runs on 127.0.0.1. Each path has its own server-everything in stdio mode
 * (`node …/server-everything/dist/index.js stdio`), so one path's server never queues
 * behind another's. One HTTP client (Node's fetch, keep-alive) drives both HTTP paths.
 *
 * Paths:
 *   direct        the MCP SDK Client + StdioClientTransport in this process, spawning the
 *                 server; `c` calls in flight on the one client (the baseline)
 *   gateway+bridge  POST /v1/sessions/:id/tools/call {"name":"everything_echo"} on the built
 *                 Worker (dist/index.js) on workerd via Miniflare's API (workerd's own
 *                 socket into the Worker, as bench/tools-call.mjs does) → SessionObject →
 *                 BridgeHub → WebSocket → the bridge CLI (bridge/dist, a separate Node
 *                 process) → the server's stdin, and back
 *   supergateway  `supergateway --stdio "<server>" --outputTransport streamableHttp --stateful`
 *                 (one server process per MCP session), called with raw JSON-RPC over
 *                 Streamable HTTP after an initialize handshake (bench/lib.mjs mcpClient)
 *
 * Method as in tools-call.mjs, per concurrency level: BENCH_WARMUP unrecorded calls on
 * every path, then BENCH_CALLS recorded calls per path in BENCH_CHUNKS chunks, the paths
 * interleaved with the order rotating (each chunk after a few unrecorded primer calls).
 * Latency is per call (closed loop, `c` in flight); calls/s is recorded calls over the time
 * spent in that path's chunks. Around each recorded chunk the CPU time of every process
 * involved is read from /proc (Linux), giving CPU ms per call by role (client, gateway,
 * bridge, server) and the load of anything else on the machine ("foreign"; a run with
 * much of it is flagged as disturbed). Results: stdout and bench/results/bridge.json (a
 * file of its own, so tools-call.mjs's latest.json is never read back and rewritten).
 *
 * Knobs (environment, all optional):
 *   BENCH_CALLS (2000)  BENCH_WARMUP (1000)  BENCH_CHUNKS (4)  BENCH_CONCURRENCY ("1,16")
 *   BENCH_MAX_ERRORS (5 per path and concurrency)  BENCH_TIMEOUT_MS (30000 per request)
 *   BENCH_DEADLINE_S (300: the whole run; past it everything is stopped and the run fails)
 *   BENCH_GATEWAY_SCRIPT (the gateway bundle; default dist/index.js)
 *   PEER_LOGS=1 (show the bridge's, supergateway's and the servers' output)
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  bridgeListed,
  COMPAT,
  freePort,
  GATEWAY_SCRIPT,
  gatewaySessionClient,
  mcpClient,
  PROTOCOL_VERSION,
  root,
  runCalls,
  setRequestTimeout,
  summarize,
  waitForPort,
  intEnv,
  printTable,
  cleanupStack,
  startGateway,
} from "./lib.mjs";
import { CLK_TCK, descendants, killKnown, procStat, startPeer, whileAlive } from "./processes.mjs";

const RESULTS = `${root}bench/results/bridge.json`;
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const BRIDGE_CLI = `${root}bridge/bin/mcp-edge-bridge.mjs`;
const BRIDGE_BUNDLE = `${root}bridge/dist/mcp-edge-bridge.mjs`;
const SUPERGATEWAY = `${root}node_modules/supergateway/dist/index.js`;
const LOOPBACK_PRELOAD = pathToFileURL(`${root}bench/loopback-listen.mjs`).href;
const BRIDGE_ID = "bench";
const BRIDGE_TOKEN = "bench-bridge-token";
const PEER_LOGS = Boolean(process.env.PEER_LOGS);

const CALLS = intEnv("BENCH_CALLS", 2000);
const WARMUP = intEnv("BENCH_WARMUP", 1000);
const CHUNKS = intEnv("BENCH_CHUNKS", 4);
const MAX_ERRORS = intEnv("BENCH_MAX_ERRORS", 5, 0);
const TIMEOUT_MS = intEnv("BENCH_TIMEOUT_MS", 30_000);
const DEADLINE_S = intEnv("BENCH_DEADLINE_S", 300);
/** Unrecorded calls before each chunk, so every slot of the loop has a live connection. */
const PRIMER = 20;
setRequestTimeout(TIMEOUT_MS);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? "1,16").split(",").map((s) => Number.parseInt(s.trim(), 10));
if (CONCURRENCY.some((c) => !(c >= 1))) throw new Error("BENCH_CONCURRENCY must list positive integers");
const LOW = Math.min(...CONCURRENCY);
const HIGH = Math.max(...CONCURRENCY);

/** Result keys and how the table names them. */
const LABELS = { direct: "direct", gatewayBridge: "gateway+bridge", supergateway: "supergateway" };


// ── The three paths ────────────────────────────────────────────────────────

/** The SDK's own client over stdio, in this process. */
async function directClient() {
  const transport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: PEER_LOGS ? "inherit" : "ignore" });
  const client = new Client({ name: "mcp-edge-bench", version: "0.1.0" });
  let pid;
  const killOnExit = () => {
    if (pid) killKnown([{ pid, start: procStat(pid)?.start }].filter((p) => p.start), "SIGKILL");
  };
  process.once("exit", killOnExit);
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => undefined);
    process.removeListener("exit", killOnExit);
    throw error;
  }
  pid = transport.pid;
  return {
    pid,
    async call(message) {
      const result = await client.callTool({ name: "echo", arguments: { message } }, undefined, { timeout: TIMEOUT_MS });
      const text = result.content?.[0]?.text;
      if (result.isError || text !== `Echo: ${message}`) throw new Error(`direct tools/call failed: ${JSON.stringify(result).slice(0, 300)}`);
    },
    async close() {
      await client.close();
      process.removeListener("exit", killOnExit);
    },
  };
}

function startBridge(gatewayUrl, config) {
  return startPeer("bridge", process.execPath, [BRIDGE_CLI, "--gateway", gatewayUrl, "--config", config, "--id", BRIDGE_ID], {
    env: { ...process.env, MCP_EDGE_BRIDGE_TOKEN: BRIDGE_TOKEN },
  });
}

async function startSupergateway() {
  const port = await freePort();
  const server = `"${process.execPath}" "${EVERYTHING}" stdio`;
  const peer = startPeer("supergateway", process.execPath, [
    "--import",
    LOOPBACK_PRELOAD,
    SUPERGATEWAY,
    "--stdio",
    server,
    "--outputTransport",
    "streamableHttp",
    "--port",
    String(port),
    "--stateful",
    "--logLevel",
    PEER_LOGS ? "info" : "none",
  ]);
  try {
    await whileAlive(peer, waitForPort(port));
  } catch (error) {
    await peer.stop();
    throw error;
  }
  return { peer, url: `http://127.0.0.1:${port}/mcp` };
}

// ── CPU accounting ─────────────────────────────────────────────────────────

/**
 * Where each path's CPU goes: CPU time of every process of the setup, sampled around each
 * recorded chunk (only one path runs at a time). Roles: this process (the clients; `client`),
 * the gateway (workerd or supergateway), the bridge, the path's own stdio server; `other`
 * is every process of the other paths, which should stay near zero. `foreign` is the
 * machine's busy CPU time (/proc/stat) less all of ours: other people's work on a shared
 * machine, which disturbs the figures (reported in cores, with a warning when high).
 * Resolution: /proc's clock tick (10 ms) per sample, small next to a chunk's total.
 */
function cpuRoles({ directPid, bridgePid, supergatewayPid }) {
  const tree = (pid) => [{ pid, start: procStat(pid)?.start }, ...descendants(pid)];
  const workerd = descendants(process.pid).filter((p) => p.comm === "workerd");
  const roles = {
    direct: { server: tree(directPid) },
    gatewayBridge: { gateway: workerd, bridge: tree(bridgePid).slice(0, 1), server: descendants(bridgePid) },
    supergateway: { gateway: tree(supergatewayPid).slice(0, 1), server: descendants(supergatewayPid) },
  };
  const machineBusyMs = () => {
    try {
      const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n", 1)[0].trim().split(/\s+/).map(Number);
      // user nice system idle iowait irq softirq steal (guest time is already in user)
      return ((ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]) * 1000) / CLK_TCK;
    } catch {
      return Number.NaN;
    }
  };
  const sample = () => {
    const usage = process.cpuUsage();
    const at = { machine: machineBusyMs(), self: (usage.user + usage.system) / 1000, roles: {} };
    for (const [path, parts] of Object.entries(roles)) {
      at.roles[path] = {};
      for (const [role, procs] of Object.entries(parts)) {
        at.roles[path][role] = procs.reduce((sum, p) => {
          const stat = procStat(p.pid);
          return sum + (stat && stat.start === p.start ? stat.cpuMs : 0);
        }, 0);
      }
    }
    return at;
  };
  /** CPU ms spent by each role between two samples while `path` ran. */
  const diff = (path, a, b) => {
    const out = { client: b.self - a.self };
    let other = 0;
    for (const [p, parts] of Object.entries(b.roles)) {
      for (const [role, ms] of Object.entries(parts)) {
        const used = ms - (a.roles[p][role] ?? 0);
        if (p === path) out[role] = used;
        else other += used;
      }
    }
    out.other = other;
    const ours = Object.values(out).reduce((sum, ms) => sum + ms, 0);
    out.foreign = Math.max(0, b.machine - a.machine - ours);
    return out;
  };
  return { sample, diff };
}

const CPU_COLUMNS = ["client", "gateway", "bridge", "server", "other"];
/** Foreign load (cores) above which the run is called disturbed. */
const FOREIGN_WARN_CORES = 0.15;

function cpuPerCall(spent, calls, elapsedMs) {
  const out = { foreignCores: spent.foreign / elapsedMs };
  let total = 0;
  for (const column of CPU_COLUMNS) {
    if (spent[column] === undefined) continue;
    out[column] = spent[column] / calls;
    total += spent[column];
  }
  out.total = total / calls;
  return out;
}

// ── Report ─────────────────────────────────────────────────────────────────

const fmt = (n, d = 2) => n.toFixed(d);
const pad = (s, n) => String(s).padStart(n);


function ratios(results) {
  const r = (path, c) => results[path][`c${c}`];
  const cap = (s) => s.replace(/^\w/, (ch) => ch.toUpperCase());
  const out = [];
  const pair = (num, den) => {
    out.push({ key: `${num}Vs${cap(den)}P50C${LOW}`, label: `${LABELS[num]} / ${LABELS[den]} p50 c=${LOW}`, value: r(num, LOW).p50 / r(den, LOW).p50 });
    out.push({ key: `${num}Vs${cap(den)}ThroughputC${HIGH}`, label: `${LABELS[num]} / ${LABELS[den]} calls/s c=${HIGH}`, value: r(num, HIGH).callsPerSec / r(den, HIGH).callsPerSec });
    if (HIGH !== LOW) out.push({ key: `${num}Vs${cap(den)}P50C${HIGH}`, label: `${LABELS[num]} / ${LABELS[den]} p50 c=${HIGH}`, value: r(num, HIGH).p50 / r(den, HIGH).p50 });
  };
  pair("gatewayBridge", "direct");
  pair("supergateway", "direct");
  pair("gatewayBridge", "supergateway");
  return out;
}

// ── Main ───────────────────────────────────────────────────────────────────

async function main() {
  for (const [file, how] of [
    [GATEWAY_SCRIPT, "npm run build"],
    [BRIDGE_BUNDLE, "npm run build:bridge"],
    [SUPERGATEWAY, "npm install"],
  ]) {
    if (!existsSync(file)) throw new Error(`${file.slice(root.length)} is missing: run ${how}`);
  }
  const bundled = statSync(BRIDGE_BUNDLE).mtimeMs;
  const newer = readdirSync(`${root}bridge/src`).filter((f) => statSync(`${root}bridge/src/${f}`).mtimeMs > bundled);
  if (newer.length) console.warn(`WARNING: bridge/src/${newer[0]} is newer than bridge/dist: run npm run build:bridge to measure it`);

  const teardown = cleanupStack();
  const cleanups = { push: teardown.add };
  const cleanup = teardown.run;
  let exitCode = 0;
  let overrun = false;
  const deadline = setTimeout(() => {
    overrun = true;
    console.error(`bench failed: still running after BENCH_DEADLINE_S=${DEADLINE_S} s; stopping`);
    cleanup().finally(() => process.exit(1));
  }, DEADLINE_S * 1000);
  deadline.unref();

  try {
    const work = mkdtempSync(join(tmpdir(), "mcp-edge-bench-"));
    // Also when the process exits without our cleanup (Miniflare's own Ctrl-C hook exits at once).
    const removeWork = () => rmSync(work, { recursive: true, force: true });
    process.once("exit", removeWork);
    cleanups.push(async () => removeWork());
    const config = join(work, "bridge.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }));

    const gateway = await startGateway({ BRIDGE_TOKENS: `local:${BRIDGE_TOKEN}` });
    cleanups.push(() => gateway.dispose());
    const bridge = startBridge(gateway.url, config);
    cleanups.push(() => bridge.stop());
    await whileAlive(bridge, bridgeListed(gateway.url, BRIDGE_ID, ["everything"]));
    const supergateway = await startSupergateway();
    cleanups.push(() => supergateway.peer.stop());

    const clients = {};
    const open = async (name, make) => {
      clients[name] = await make();
      cleanups.push(() => clients[name].close());
    };
    await open("direct", directClient);
    await open("gatewayBridge", () => whileAlive(bridge, gatewaySessionClient(gateway.url, { type: "local", bridge: BRIDGE_ID, server: "everything" })));
    await open("supergateway", () => whileAlive(supergateway.peer, mcpClient(supergateway.url)));
    const names = Object.keys(clients);
    const cpu = cpuRoles({ directPid: clients.direct.pid, bridgePid: bridge.child.pid, supergatewayPid: supergateway.peer.child.pid });

    // Failed calls are counted (and not timed); more than MAX_ERRORS on a path and concurrency fails the run.
    const errors = Object.fromEntries(names.map((n) => [n, {}]));
    const caller = (name, c) => async (message) => {
      try {
        await clients[name].call(message);
        return true;
      } catch (error) {
        if (overrun) throw error; // everything is being stopped: no more reports
        const list = (errors[name][`c${c}`] ??= []);
        list.push(error?.message ?? String(error));
        console.warn(`  ! ${LABELS[name]} c=${c}: ${list.at(-1).slice(0, 200)}`);
        if (list.length > MAX_ERRORS) throw new Error(`${LABELS[name]} at c=${c}: more than ${MAX_ERRORS} failed calls`);
        return false;
      }
    };

    console.log(
      `bridged tools/call echo (server-everything over stdio): ${CALLS} recorded calls per path after ${WARMUP} warm-up calls, ` +
        `concurrency ${CONCURRENCY.join(" and ")}, ${CHUNKS} interleaved chunks; ${cpus().length} CPUs`,
    );
    console.log(`gateway = ${GATEWAY_SCRIPT}; bridge = ${BRIDGE_BUNDLE.slice(root.length)}`);
    const results = Object.fromEntries(names.map((name) => [name, {}]));
    for (const c of CONCURRENCY) {
      for (const name of names) await runCalls(caller(name, c), WARMUP, c, "w");
      const chunks = Object.fromEntries(names.map((name) => [name, []]));
      const spent = Object.fromEntries(names.map((name) => [name, {}]));
      const perChunk = Math.ceil(CALLS / CHUNKS);
      for (let k = 0; k < CHUNKS; k++) {
        const size = Math.min(perChunk, CALLS - k * perChunk);
        if (size <= 0) break;
        for (let j = 0; j < names.length; j++) {
          const name = names[(k + j) % names.length];
          await runCalls(caller(name, c), Math.max(c, PRIMER), c, "p");
          const before = cpu.sample();
          chunks[name].push(await runCalls(caller(name, c), size, c, "m"));
          for (const [role, ms] of Object.entries(cpu.diff(name, before, cpu.sample()))) spent[name][role] = (spent[name][role] ?? 0) + ms;
        }
      }
      for (const name of names) {
        const r = (results[name][`c${c}`] = summarize(chunks[name], c));
        r.errors = errors[name][`c${c}`]?.length ?? 0;
        r.cpuMsPerCall = cpuPerCall(spent[name], r.calls, r.elapsedMs);
        console.log(
          `  ${LABELS[name].padEnd(15)} c=${String(c).padEnd(3)} p50 ${fmt(r.p50).padStart(6)} ms  ${fmt(r.callsPerSec, 0).padStart(5)} calls/s` +
            `   p50 by chunk: ${r.chunks.map((x) => fmt(x.p50)).join(" ")}${r.errors ? `   ${r.errors} failed` : ""}`,
        );
      }
    }
    printTable(results, names, CONCURRENCY, (name) => LABELS[name]);
    console.log(
      `\nCPU ms per call ("other": the other paths' processes, idle; "foreign": cores busy outside this benchmark)\n` +
        `${"path".padEnd(16)}${pad("c", 3)}${CPU_COLUMNS.map((col) => pad(col, 9)).join("")}${pad("total", 9)}${pad("foreign", 9)}`,
    );
    let disturbed = 0;
    for (const c of CONCURRENCY) {
      for (const name of names) {
        const x = results[name][`c${c}`].cpuMsPerCall;
        disturbed = Math.max(disturbed, x.foreignCores);
        console.log(
          `${LABELS[name].padEnd(16)}${pad(c, 3)}${CPU_COLUMNS.map((col) => pad(x[col] === undefined ? "-" : fmt(x[col], 3), 9)).join("")}${pad(fmt(x.total, 3), 9)}${pad(fmt(x.foreignCores, 2), 9)}`,
        );
      }
    }
    if (disturbed > FOREIGN_WARN_CORES) console.log(`WARNING: other work used up to ${fmt(disturbed)} cores during the measurement: the figures are disturbed, rerun on a quiet machine`);
    const ratioList = ratios(results);
    console.log("");
    for (const e of ratioList) console.log(`${e.label.padEnd(46)}${pad(fmt(e.value), 6)}x`);
    const failed = names.flatMap((n) => Object.entries(errors[n]).map(([c, list]) => `${LABELS[n]} ${c}: ${list.length}`));
    if (failed.length) console.log(`\nWARNING: failed calls (not timed): ${failed.join(", ")}`);

    const pkg = (name) => JSON.parse(readFileSync(`${root}node_modules/${name}/package.json`, "utf8")).version;
    const report = {
      date: new Date().toISOString(),
      settings: {
        calls: CALLS,
        warmup: WARMUP,
        chunks: CHUNKS,
        primerCalls: PRIMER,
        concurrency: CONCURRENCY,
        tool: "echo",
        server: "server-everything stdio",
        supergatewayProtocolVersion: PROTOCOL_VERSION,
        maxErrors: MAX_ERRORS,
      },
      environment: {
        node: process.version,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        miniflare: pkg("miniflare"),
        wrangler: pkg("wrangler"),
        sdk: pkg("@modelcontextprotocol/sdk"),
        serverEverything: pkg("@modelcontextprotocol/server-everything"),
        supergateway: pkg("supergateway"),
        ...COMPAT,
      },
      builds: { gateway: GATEWAY_SCRIPT, bridge: BRIDGE_BUNDLE },
      paths: LABELS,
      results,
      ratios: Object.fromEntries(ratioList.map((e) => [e.key, { value: e.value }])),
      maxForeignCores: disturbed,
      disturbed: disturbed > FOREIGN_WARN_CORES,
      errors,
    };
    await mkdir(new URL("results/", import.meta.url), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nwrote ${RESULTS.slice(root.length)}`);
  } catch (error) {
    if (!overrun) console.error("bench failed:", error?.stack ?? error);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  process.exit(exitCode);
}

await main();
