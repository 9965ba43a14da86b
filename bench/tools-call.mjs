/**
 * tools/call benchmark: the gateway vs the same MCP server called directly, and vs a
 * pass-through Worker + Durable Object (the floor any Workers-hosted gateway pays).
 *
 *   npm run bench      (builds dist/ with `wrangler deploy --dry-run`, then runs this)
 *
 * Everything runs on 127.0.0.1: server-everything (Streamable HTTP) as a child process,
 * and the built Worker bundle (dist/index.js) plus bench/passthrough-worker.mjs served
 * on workerd by Miniflare (not `wrangler dev`, whose proxy costs several times the
 * gateway), hit over real loopback HTTP. One HTTP client (Node's fetch, keep-alive)
 * drives all paths, one path at a time.
 *
 * Paths:
 *   direct   JSON-RPC tools/call straight to server-everything (after our own initialize)
 *   floor    the same JSON-RPC through the pass-through Worker → DO → upstream
 *   gateway  POST /v1/sessions/:id/tools/call on the mcp-edge Worker (one session)
 *
 * Method, per concurrency level: BENCH_WARMUP unrecorded calls on every path first (JIT
 * in workerd, in the server and in this process; connection pools), then BENCH_CALLS
 * recorded calls per path in BENCH_CHUNKS chunks, interleaved across the paths with the
 * order rotating, so drift and noisy neighbours hit all paths alike. Latency is per call
 * (closed loop, `c` calls in flight); calls/s is recorded calls over the time spent in
 * that path's chunks. Results: stdout and bench/results/latest.json.
 *
 * Knobs (environment, all optional):
 *   BENCH_CALLS (2000)  BENCH_WARMUP (1000)  BENCH_CHUNKS (4)  BENCH_CONCURRENCY ("1,16")
 *   BENCH_MAX_ERRORS (5 per path and concurrency; failed calls are reported, not timed)
 *   BENCH_TIMEOUT_MS (30000 per request)
 *   BENCH_ENTRY ("direct": workerd's own socket into each Worker, as the edge hands a
 *     request to a Worker; "miniflare": through Miniflare's entry worker, one more hop)
 *   BENCH_PROTOCOL_VERSION (what direct and floor negotiate; default: the gateway SDK's,
 *     see lib.mjs for why it must match)
 *   BENCH_GATEWAY_SCRIPT (the gateway bundle; default dist/index.js)
 *   BENCH_COMPARE ("a/dist/index.js,b/dist/index.js": other gateway builds, measured
 *     side by side as compare1, compare2, ... to judge a change under the same noise)
 *   PEER_LOGS=1 (show server-everything's output)
 */
import { mkdir, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { cleanupStack, COMPAT, GATEWAY_SCRIPT, gatewayClient, intEnv, mcpClient, printTable, PROTOCOL_VERSION, root, runCalls, setRequestTimeout, startEverything, startWorkers, summarize } from "./lib.mjs";

const RESULTS = `${root}bench/results/latest.json`;
const CALLS = intEnv("BENCH_CALLS", 2000);
const WARMUP = intEnv("BENCH_WARMUP", 1000);
const CHUNKS = intEnv("BENCH_CHUNKS", 4);
const MAX_ERRORS = intEnv("BENCH_MAX_ERRORS", 5, 0);
/** Unrecorded calls before each chunk, so every slot of the loop has a live connection. */
const PRIMER = 20;
setRequestTimeout(intEnv("BENCH_TIMEOUT_MS", 30_000));
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? "1,16").split(",").map((s) => Number.parseInt(s.trim(), 10));
const ENTRY = process.env.BENCH_ENTRY || "direct";
const COMPARE = (process.env.BENCH_COMPARE ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean)
  .map((p) => resolve(p));
if (CONCURRENCY.some((c) => !(c >= 1)) || !["direct", "miniflare"].includes(ENTRY)) {
  throw new Error("BENCH_CONCURRENCY must list positive integers; BENCH_ENTRY is direct or miniflare");
}
const LOW = Math.min(...CONCURRENCY);
const HIGH = Math.max(...CONCURRENCY);

/** The goals this benchmark reports against (gateway only; direct and floor are references). */
const TARGETS = [
  { over: "direct", figure: "p50", c: 1, max: 1.6 },
  { over: "floor", figure: "p50", c: 1, max: 1.15 },
  { over: "direct", figure: "callsPerSec", c: 16, min: 0.6 },
];


// ── Report ─────────────────────────────────────────────────────────────────

const fmt = (n, d = 2) => n.toFixed(d);
const pad = (s, n) => String(s).padStart(n);


/** Ratios of every gateway build over direct and floor (and over the gateway, for compared builds). */
function ratios(results, gateways) {
  const r = (path, c) => results[path][`c${c}`];
  const out = [];
  const add = (key, label, value, target) => {
    const entry = { key, label, value };
    if (target) {
      entry.target = target.max !== undefined ? `<= ${target.max}` : `>= ${target.min}`;
      entry.pass = target.max !== undefined ? value <= target.max : value >= target.min;
    }
    out.push(entry);
  };
  const targetFor = (over, figure, c) => TARGETS.find((t) => t.over === over && t.figure === figure && t.c === c);
  const pair = (num, den) => {
    const prefix = num === "floor" ? "floor" : num;
    add(`${prefix}Vs${cap(den)}P50C${LOW}`, `${num}/${den} p50 c=${LOW}`, r(num, LOW).p50 / r(den, LOW).p50, num !== "floor" && den !== "gateway" ? targetFor(den, "p50", LOW) : undefined);
    add(`${prefix}Vs${cap(den)}ThroughputC${HIGH}`, `${num}/${den} calls/s c=${HIGH}`, r(num, HIGH).callsPerSec / r(den, HIGH).callsPerSec, num !== "floor" && den !== "gateway" ? targetFor(den, "callsPerSec", HIGH) : undefined);
    add(`${prefix}Vs${cap(den)}P50C${HIGH}`, `${num}/${den} p50 c=${HIGH}`, r(num, HIGH).p50 / r(den, HIGH).p50);
  };
  for (const g of gateways) {
    pair(g, "direct");
    pair(g, "floor");
    if (g !== "gateway") pair(g, "gateway");
  }
  pair("floor", "direct");
  return out;
}

const cap = (s) => s.replace(/^\w/, (ch) => ch.toUpperCase());

function printRatios(list) {
  console.log("");
  for (const e of list) {
    const verdict = e.target === undefined ? "" : `   target ${e.target.padEnd(7)} ${e.pass ? "PASS" : "MISS"}`;
    console.log(`${e.label.padEnd(34)}${pad(fmt(e.value), 6)}x${verdict}`);
  }
}

// ── Main ───────────────────────────────────────────────────────────────────

async function main() {
  const teardown = cleanupStack();
  const cleanups = { push: teardown.add };
  const cleanup = teardown.run;
  let exitCode = 0;
  try {
    const everything = await startEverything();
    cleanups.push(() => everything.stop());
    const workers = await startWorkers(everything.url, { entry: ENTRY, compare: COMPARE });
    cleanups.push(() => workers.dispose());

    const clients = {};
    const open = async (name, make) => {
      clients[name] = await make();
      cleanups.push(() => clients[name].close());
    };
    await open("direct", () => mcpClient(everything.url));
    await open("floor", () => mcpClient(`${workers.floorUrl}/mcp`));
    await open("gateway", () => gatewayClient(workers.gatewayUrl, everything.url));
    for (const [i, url] of (workers.compareUrls ?? []).entries()) await open(`compare${i + 1}`, () => gatewayClient(url, everything.url));
    const names = Object.keys(clients);
    const gateways = names.filter((n) => n === "gateway" || n.startsWith("compare"));

    // Failed calls are counted (and not timed); more than MAX_ERRORS on a path and concurrency fails the run.
    const errors = Object.fromEntries(names.map((n) => [n, {}]));
    const caller = (name, c) => async (message) => {
      try {
        await clients[name].call(message);
        return true;
      } catch (error) {
        const list = (errors[name][`c${c}`] ??= []);
        list.push(error?.message ?? String(error));
        console.warn(`  ! ${name} c=${c}: ${list.at(-1).slice(0, 200)}`);
        if (list.length > MAX_ERRORS) throw new Error(`${name} at c=${c}: more than ${MAX_ERRORS} failed calls`);
        return false;
      }
    };

    console.log(
      `tools/call echo: ${CALLS} recorded calls per path after ${WARMUP} warm-up calls, concurrency ${CONCURRENCY.join(" and ")}, ` +
        `${CHUNKS} interleaved chunks; MCP ${PROTOCOL_VERSION}; ${cpus().length} CPUs; workerd via ${ENTRY === "direct" ? "direct sockets" : "Miniflare's entry worker"}`,
    );
    if (PROTOCOL_VERSION !== LATEST_PROTOCOL_VERSION) {
      console.log(`NOTE: direct and floor speak MCP ${PROTOCOL_VERSION}, the gateway ${LATEST_PROTOCOL_VERSION}: gateway ratios are not like for like`);
    }
    console.log(`gateway = ${GATEWAY_SCRIPT}`);
    COMPARE.forEach((script, i) => console.log(`compare${i + 1} = ${script}`));
    const results = Object.fromEntries(names.map((name) => [name, {}]));
    for (const c of CONCURRENCY) {
      // Warm-up at this concurrency on every path before any recording: JIT in workerd, in
      // the server and here (the direct path alone keeps speeding up for ~3,000 calls).
      for (const name of names) await runCalls(caller(name, c), WARMUP, c, "w");
      // Recording: CALLS per path in CHUNKS chunks, paths interleaved and the order rotated.
      const chunks = Object.fromEntries(names.map((name) => [name, []]));
      const perChunk = Math.ceil(CALLS / CHUNKS);
      for (let k = 0; k < CHUNKS; k++) {
        const size = Math.min(perChunk, CALLS - k * perChunk);
        if (size <= 0) break;
        for (let j = 0; j < names.length; j++) {
          const name = names[(k + j) % names.length];
          await runCalls(caller(name, c), Math.max(c, PRIMER), c, "p");
          chunks[name].push(await runCalls(caller(name, c), size, c, "m"));
        }
      }
      for (const name of names) {
        const r = (results[name][`c${c}`] = summarize(chunks[name], c));
        r.errors = errors[name][`c${c}`]?.length ?? 0;
        console.log(
          `  ${name.padEnd(9)} c=${String(c).padEnd(3)} p50 ${fmt(r.p50).padStart(6)} ms  ${fmt(r.callsPerSec, 0).padStart(5)} calls/s` +
            `   p50 by chunk: ${r.chunks.map((x) => fmt(x.p50)).join(" ")}${r.errors ? `   ${r.errors} failed` : ""}`,
        );
      }
    }
    printTable(results, names, CONCURRENCY);
    const ratioList = ratios(results, gateways);
    printRatios(ratioList);
    const failed = names.flatMap((n) => Object.entries(errors[n]).map(([c, list]) => `${n} ${c}: ${list.length}`));
    if (failed.length) console.log(`\nWARNING: failed calls (not timed): ${failed.join(", ")}`);

    const pkg = (name) => JSON.parse(readFileSync(`${root}node_modules/${name}/package.json`, "utf8")).version;
    const report = {
      date: new Date().toISOString(),
      settings: { protocolVersion: PROTOCOL_VERSION, calls: CALLS, warmup: WARMUP, chunks: CHUNKS, primerCalls: PRIMER, concurrency: CONCURRENCY, entry: ENTRY, tool: "echo", maxErrors: MAX_ERRORS },
      environment: {
        node: process.version,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        miniflare: pkg("miniflare"),
        wrangler: pkg("wrangler"),
        serverEverything: pkg("@modelcontextprotocol/server-everything"),
        ...COMPAT,
      },
      builds: { gateway: GATEWAY_SCRIPT, ...Object.fromEntries(COMPARE.map((s, i) => [`compare${i + 1}`, s])) },
      results,
      ratios: Object.fromEntries(ratioList.map((e) => [e.key, { value: e.value, ...(e.target ? { target: e.target, pass: e.pass } : {}) }])),
      errors,
    };
    await mkdir(new URL("results/", import.meta.url), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nwrote ${RESULTS.slice(root.length)}`);
  } catch (error) {
    console.error("bench failed:", error?.stack ?? error);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  // Keep-alive sockets would hold the event loop for a few seconds more; all is closed.
  process.exit(exitCode);
}

await main();
