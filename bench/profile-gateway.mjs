/**
 * Where a gateway tools/call spends its CPU: runs the gateway bundle (dist/index.js) on
 * workerd with the V8 inspector on, warms it up, then samples the Worker's isolate (the
 * Worker and its session Durable Object share it) while it serves tools/call echo.
 *
 *   npm run build && node bench/profile-gateway.mjs
 *
 * Prints the heaviest functions (self time) and packages (self time, and time on the
 * stack), per call; writes bench/results/gateway.cpuprofile (open it in Chrome DevTools
 * → Performance, or https://www.speedscope.app). Knobs: PROFILE_CALLS (3000),
 * PROFILE_WARMUP (2000), PROFILE_CONCURRENCY (1), PROFILE_TOP (30).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { freePort, GATEWAY_SCRIPT, gatewayClient, inspector, root, runCalls, startEverything, startWorkers, summarize } from "./lib.mjs";

const CALLS = Number(process.env.PROFILE_CALLS ?? 3000);
const WARMUP = Number(process.env.PROFILE_WARMUP ?? 2000);
const CONCURRENCY = Number(process.env.PROFILE_CONCURRENCY ?? 1);
const TOP = Number(process.env.PROFILE_TOP ?? 30);
const OUT = `${root}bench/results/gateway.cpuprofile`;

/** Maps a bundle line to the module esbuild placed there (`// node_modules/x/...` markers). */
async function moduleMap() {
  const lines = (await readFile(GATEWAY_SCRIPT, "utf8")).split("\n");
  const starts = [];
  lines.forEach((line, i) => {
    const m = /^\/\/ (?:\S*?\/)??(node_modules\/(?:@[^/]+\/)?[^/\s]+|src\/\S+|durable-objects\/\S+)/.exec(line);
    if (m) starts.push({ line: i, module: m[1].replace(/^node_modules\//, "") });
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = "(bundle)";
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid].line <= line) {
        found = starts[mid].module;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

function analyze(profile, moduleOf, calls) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n) => {
    const f = n.callFrame;
    if (!f.url) {
      // No script: V8's pseudo-frames ((idle), (program), (garbage collector)), runtime
      // builtins (fetch, URL, TextDecoderStream, ...) and, at the root, runtime work that
      // runs without any JS frame (I/O, stream plumbing).
      const name = f.functionName === "(anonymous)" || !f.functionName ? "(runtime, no JS frame)" : f.functionName;
      const module = name.startsWith("(") ? name : `builtin ${name}`;
      return { fn: module, module };
    }
    const module = f.url.endsWith("index.js") ? moduleOf(f.lineNumber) : f.url.replace(/^.*\//, "");
    return { fn: `${f.functionName || "(anonymous)"} ${module}:${f.lineNumber + 1}`, module };
  };
  const self = new Map();
  const selfModule = new Map();
  const onStack = new Map();
  const onStackFn = new Map();
  let total = 0;
  let idle = 0;
  const add = (map, key, dt) => map.set(key, (map.get(key) ?? 0) + dt);
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000; // µs → ms
    total += dt;
    const node = byId.get(id);
    const { fn, module } = label(node);
    if (fn === "(idle)") {
      idle += dt;
      return;
    }
    add(self, fn, dt);
    add(selfModule, module, dt);
    const seen = new Set();
    const seenFn = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const { fn: f, module: m } = label(byId.get(cur));
      if (!seenFn.has(f) && !f.startsWith("(")) {
        seenFn.add(f);
        add(onStackFn, f, dt);
      }
      if (m.startsWith("(") || m.startsWith("builtin ")) continue;
      if (!seen.has(m)) {
        seen.add(m);
        add(onStack, m, dt);
      }
    }
  });
  const busy = total - idle;
  const rows = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([k, v]) => `  ${((v / calls) * 1000).toFixed(0).padStart(6)} µs/call ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`);
  console.log(
    `\nisolate busy ${(busy / 1000).toFixed(2)} s of ${(total / 1000).toFixed(2)} s sampled: ${((busy / calls) * 1000).toFixed(0)} µs of isolate-thread time per call` +
      " (the sampler inflates it; compare shares, not absolute µs)",
  );
  console.log(`\nself time by package/module:\n${rows(selfModule).join("\n")}`);
  console.log(`\non the stack (inclusive) by package/module:\n${rows(onStack).join("\n")}`);
  console.log(`\nself time by function:\n${rows(self).join("\n")}`);
  console.log(`\non the stack (inclusive) by function:\n${rows(onStackFn).join("\n")}`);
}

async function main() {
  const cleanups = [];
  let code = 0;
  try {
    const everything = await startEverything();
    cleanups.push(() => everything.stop());
    const inspectorPort = await freePort();
    const workers = await startWorkers(everything.url, { inspectorPort });
    cleanups.push(() => workers.dispose());
    const gateway = await gatewayClient(workers.gatewayUrl, everything.url);
    cleanups.push(() => gateway.close());

    await runCalls((m) => gateway.call(m), WARMUP, CONCURRENCY, "w");
    const cdp = await inspector(`ws://127.0.0.1:${inspectorPort}/core:user:mcp-edge`);
    cleanups.push(async () => cdp.close());
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    await cdp.send("Profiler.start");
    const run = await runCalls((m) => gateway.call(m), CALLS, CONCURRENCY, "m");
    const { profile } = await cdp.send("Profiler.stop");
    const { p50, callsPerSec } = summarize([run], CONCURRENCY);
    console.log(`${CALLS} gateway calls at c=${CONCURRENCY} under the profiler: p50 ${p50.toFixed(2)} ms, ${callsPerSec.toFixed(0)} calls/s (sampling slows it down)`);
    await mkdir(new URL("results/", import.meta.url), { recursive: true });
    await writeFile(OUT, JSON.stringify(profile));
    analyze(profile, await moduleMap(), CALLS);
    console.log(`\nwrote ${OUT.slice(root.length)}`);
  } catch (error) {
    console.error("profile failed:", error?.stack ?? error);
    code = 1;
  } finally {
    while (cleanups.length) await cleanups.pop()().catch((e) => console.error("cleanup:", e?.message ?? e));
  }
  process.exit(code);
}

await main();
