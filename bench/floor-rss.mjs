/**
 * The workerd process's resident memory under a steady echo load through the
 * pass-through floor (bench/passthrough-worker.mjs: a Worker and a Durable Object that
 * only forward bytes, no mcp-edge code): the reference for the gateway's RSS curve in
 * the soak (bench/soak.mjs). If the floor's RSS climbs the same way, the climb is the
 * runtime's, not mcp-edge's; the soak's live-heap figure says the same from inside.
 *
 *   node bench/floor-rss.mjs
 *
 * Knobs: FLOOR_CALLS (36000), FLOOR_STEP (6000: calls between samples), FLOOR_CONCURRENCY (64),
 * FLOOR_SESSIONS (5 MCP sessions through the floor). Results: stdout and bench/results/floor-rss.json.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { cleanupStack, freePort, intEnv, mcpClient, passthroughWorker, root, runCalls, startEverything } from "./lib.mjs";
import { descendants, rssMiB } from "./processes.mjs";
import { slope } from "./soak-lib.mjs";

const CALLS = intEnv("FLOOR_CALLS", 36_000);
const STEP = intEnv("FLOOR_STEP", 6000);
const CONCURRENCY = intEnv("FLOOR_CONCURRENCY", 64);
const SESSIONS = intEnv("FLOOR_SESSIONS", 5);
const RESULTS = `${root}bench/results/floor-rss.json`;

const teardown = cleanupStack();
let exitCode = 0;
try {
  const everything = await startEverything();
  teardown.add(() => everything.stop());
  const port = await freePort();
  const mf = new Miniflare(convertV4MiniflareOptions({ host: "127.0.0.1", port, ...passthroughWorker(everything.url) }));
  teardown.add(() => mf.dispose());
  const url = await mf.ready;
  const workerd = descendants(process.pid).filter((p) => p.comm === "workerd");
  if (workerd.length !== 1) throw new Error(`expected one workerd process, found ${workerd.length}`);
  const clients = [];
  for (let i = 0; i < SESSIONS; i++) clients.push(await mcpClient(`${url.origin}/mcp`));
  teardown.add(() => Promise.all(clients.map((c) => c.close())));
  const t0 = performance.now();
  const samples = [{ calls: 0, atS: 0, rssMiB: rssMiB(workerd[0].pid) }];
  console.log(`pass-through floor, echo at concurrency ${CONCURRENCY} over ${SESSIONS} sessions: workerd RSS ${samples[0].rssMiB.toFixed(0)} MiB`);
  let done = 0;
  while (done < CALLS) {
    const n = Math.min(STEP, CALLS - done);
    let next = 0;
    await runCalls(async (m) => clients[next++ % SESSIONS].call(m), n, CONCURRENCY, "f");
    done += n;
    samples.push({ calls: done, atS: (performance.now() - t0) / 1000, rssMiB: rssMiB(workerd[0].pid) });
    console.log(`  after ${done} calls (${samples.at(-1).atS.toFixed(0)} s): ${samples.at(-1).rssMiB.toFixed(0)} MiB`);
  }
  const perThousand = slope(samples.map((s) => ({ x: s.calls / 1000, y: s.rssMiB })));
  const lateHalf = slope(samples.slice(Math.floor(samples.length / 2)).map((s) => ({ x: s.calls / 1000, y: s.rssMiB })));
  console.log(`slope: ${perThousand.toFixed(2)} MiB per 1,000 calls overall, ${lateHalf.toFixed(2)} over the second half`);
  await mkdir(new URL("results/", import.meta.url), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify({ date: new Date().toISOString(), settings: { calls: CALLS, step: STEP, concurrency: CONCURRENCY, sessions: SESSIONS }, samples, slopeMiBPerThousandCalls: perThousand, slopeSecondHalf: lateHalf }, null, 2)}\n`);
  console.log(`wrote ${RESULTS.slice(root.length)}`);
} catch (error) {
  console.error("floor-rss failed:", error?.stack ?? error);
  exitCode = 1;
} finally {
  await teardown.run();
}
process.exit(exitCode);
