/**
 * The aggregated MCP endpoint's cost: `tools/call` echo of server-everything three ways,
 * on the built Worker (dist/index.js) served by workerd, all on 127.0.0.1:
 *
 *   direct    JSON-RPC straight to server-everything (reference)
 *   rest      POST /v1/sessions/:id/tools/call (the JSON API)
 *   mcp       JSON-RPC to /v1/sessions/:id/mcp (the aggregated endpoint; SSE answers)
 *
 *   npm run build && node bench/mcp-endpoint.mjs
 *
 * Same method as bench/tools-call.mjs: warm-up on every path, then BENCH_CALLS recorded
 * calls per path in BENCH_CHUNKS interleaved chunks, at each BENCH_CONCURRENCY.
 * Results: stdout and bench/results/mcp-endpoint.json.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { cleanupStack, gatewayClient, intEnv, mcpClient, printTable, root, runCalls, startEverything, startWorkers, summarize } from "./lib.mjs";

const CALLS = intEnv("BENCH_CALLS", 1000);
const WARMUP = intEnv("BENCH_WARMUP", 500);
const CHUNKS = intEnv("BENCH_CHUNKS", 4);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? "1,16").split(",").map((s) => Number.parseInt(s.trim(), 10));

async function main() {
  const teardown = cleanupStack();
  try {
    const everything = await startEverything();
    teardown.add(() => everything.stop());
    const workers = await startWorkers(everything.url);
    teardown.add(() => workers.dispose());

    // The endpoint's session names the server's tools unprefixed, so the raw client's `echo` works as is.
    const created = await fetch(`${workers.gatewayUrl}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ servers: { everything: { type: "remote", url: everything.url, prefix: false } } }),
    });
    const session = await created.json();
    if (created.status !== 201) throw new Error(`creating the session failed: ${JSON.stringify(session)}`);

    const clients = {
      direct: await mcpClient(everything.url),
      rest: await gatewayClient(workers.gatewayUrl, everything.url),
      mcp: await mcpClient(`${workers.gatewayUrl}/v1/sessions/${session.id}/mcp`),
    };
    for (const client of Object.values(clients)) teardown.add(() => client.close());
    const names = Object.keys(clients);
    const call = (name) => (message) => clients[name].call(message);

    console.log(`tools/call echo: ${CALLS} recorded calls per path after ${WARMUP} warm-up, concurrency ${CONCURRENCY.join(" and ")}, ${CHUNKS} chunks; ${cpus().length} CPUs`);
    const results = Object.fromEntries(names.map((n) => [n, {}]));
    for (const c of CONCURRENCY) {
      for (const name of names) await runCalls(call(name), WARMUP, c, "w");
      const chunks = Object.fromEntries(names.map((n) => [n, []]));
      const per = Math.ceil(CALLS / CHUNKS);
      for (let k = 0; k < CHUNKS; k++) {
        for (let j = 0; j < names.length; j++) {
          const name = names[(k + j) % names.length];
          chunks[name].push(await runCalls(call(name), Math.min(per, CALLS - k * per), c, "m"));
        }
      }
      for (const name of names) results[name][`c${c}`] = summarize(chunks[name], c);
    }
    printTable(results, names, CONCURRENCY);
    const low = Math.min(...CONCURRENCY);
    const high = Math.max(...CONCURRENCY);
    const ratio = {
      mcpVsRestP50Low: results.mcp[`c${low}`].p50 / results.rest[`c${low}`].p50,
      mcpVsRestThroughputHigh: results.mcp[`c${high}`].callsPerSec / results.rest[`c${high}`].callsPerSec,
    };
    console.log(`\nmcp/rest p50 c=${low}: ${ratio.mcpVsRestP50Low.toFixed(2)}x   mcp/rest calls/s c=${high}: ${ratio.mcpVsRestThroughputHigh.toFixed(2)}x`);
    await mkdir(`${root}bench/results`, { recursive: true });
    await writeFile(`${root}bench/results/mcp-endpoint.json`, JSON.stringify({ at: new Date().toISOString(), calls: CALLS, warmup: WARMUP, results, ratio }, null, 2));
  } finally {
    await teardown.run();
  }
}

await main();
