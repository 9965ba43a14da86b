/**
 * Code mode benchmark: a multi-step task over a real stdio server reached through the
 * bridge, done as direct tool calls vs one script, and the start cost of each sandbox.
 *
 *   npm run bench   (builds dist/ and bridge/dist, then runs this among the others)
 *   node bench/code-mode.mjs
 *
 * Setup, all on 127.0.0.1: BENCH_FILES text files (5–400 lines each) in a temporary
 * directory, served by @modelcontextprotocol/server-filesystem over stdio through the
 * bridge CLI (bridge/dist, its own process) to the built Worker (dist/index.js) on workerd
 * (Miniflare's API, workerd's own socket into the Worker — never wrangler dev). Two
 * copies of the Worker run side by side: one with a Worker Loader binding
 * (CODE_SANDBOX=loader), one with CODE_SANDBOX=quickjs; each has its own bridge.
 *
 * Task: list the directory, read every file, count lines, report the 5 largest.
 *   direct  POST /tools/call fs_list_directory, then fs_read_text_file for every file
 *           (all in flight at once, as a model's parallel tool calls would be); the lines
 *           are counted here. Tokens reaching the model: every tool result's `output` (and,
 *           as a lower bound, its text part alone: read_text_file also sends the text as
 *           structuredContent, which the normalized output appends).
 *   script  one POST /exec whose script does the same (Promise.all over the reads).
 *           Tokens reaching the model: the exec answer (result, logs, calls list) as JSON.
 * Tokens are counted with gpt-tokenizer (o200k_base, the GPT-4o/o-series encoding). The
 * model's own round trips (at least two steps for direct, one for the script) are not in
 * the wall times: only the tool side is measured.
 *
 * Sandbox start: POST /exec `return 1` (cold: the first run in a fresh workerd; warm:
 * BENCH_START_RUNS more), against GET /v1/sessions/:id as the no-sandbox baseline.
 *
 * Knobs: BENCH_FILES (200), BENCH_RUNS (5, task repetitions per path), BENCH_START_RUNS (50),
 * BENCH_GATEWAY_SCRIPT (default dist/index.js), PEER_LOGS=1.
 * Results: stdout and bench/results/code-mode.json.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { encode } from "gpt-tokenizer";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { cleanupStack, freePort, GATEWAY_SCRIPT, gatewayWorker, intEnv, percentile, root } from "./lib.mjs";

const RESULTS = `${root}bench/results/code-mode.json`;
const BRIDGE_CLI = `${root}bridge/bin/mcp-edge-bridge.mjs`;
const BRIDGE_BUNDLE = `${root}bridge/dist/mcp-edge-bridge.mjs`;
const FILESYSTEM = `${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
const BRIDGE_TOKEN = "bench-code-mode-token";
const PEER_LOGS = Boolean(process.env.PEER_LOGS);
const FILES = intEnv("BENCH_FILES", 200);
const RUNS = intEnv("BENCH_RUNS", 5);
const START_RUNS = intEnv("BENCH_START_RUNS", 50);

for (const [file, hint] of [
  [GATEWAY_SCRIPT, "npm run build"],
  [BRIDGE_BUNDLE, "npm run build:bridge"],
]) {
  if (!existsSync(file)) throw new Error(`${file} is missing: run ${hint} first`);
}

/** Deterministic line counts (a small LCG), so every run reads the same files. */
function makeFiles(dir) {
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647);
  const lines = [];
  for (let i = 0; i < FILES; i++) {
    const count = 5 + (next() % 396);
    const name = `file-${String(i).padStart(3, "0")}.txt`;
    writeFileSync(join(dir, name), Array.from({ length: count }, (_, j) => `${name} line ${j + 1}: the quick brown fox jumps over the lazy dog`).join("\n") + "\n");
    lines.push({ name, lines: count });
  }
  return lines.sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name)).slice(0, 5);
}

function startProcess(name, args, env) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let tail = "";
  const keep = (chunk) => {
    if (PEER_LOGS) process.stderr.write(`[${name}] ${chunk}`);
    tail = (tail + chunk).slice(-4096);
  };
  child.stdout.setEncoding("utf8").on("data", keep);
  child.stderr.setEncoding("utf8").on("data", keep);
  const kill = () => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL");
  process.once("exit", kill);
  return {
    child,
    log: () => tail,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(kill, 4000).unref();
      }),
  };
}

async function json(url, init = {}) {
  const res = await fetch(url, { ...init, headers: { "content-type": "application/json", ...init.headers }, signal: AbortSignal.timeout(120_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function waitForBridge(gatewayUrl, bridgeId, bridge) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const body = await json(`${gatewayUrl}/v1/bridges`);
    if (body.bridges?.some((b) => b.id === bridgeId)) return;
    if (Date.now() > deadline) throw new Error(`bridge ${bridgeId} not listed: ${bridge.log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const SCRIPT = (dir) => `
const listing = await tools.fs_list_directory({ path: ${JSON.stringify(dir)} });
const text = (value) => (typeof value === "string" ? value : value.content);
const names = text(listing).split("\\n").filter((line) => line.startsWith("[FILE] ")).map((line) => line.slice(7));
const counts = await Promise.all(names.map(async (name) => {
  const body = text(await tools.fs_read_text_file({ path: ${JSON.stringify(dir)} + "/" + name }));
  return { name, lines: body.split("\\n").filter((l) => l !== "").length };
}));
counts.sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name));
return { files: counts.length, largest: counts.slice(0, 5) };
`;

/**
 * read_text_file answers text and the same text as structuredContent; the normalized
 * output carries both (the structured part after "Structured content:"). The text part
 * alone is what a client showing only text would hand over.
 */
function textPart(output) {
  const at = output.indexOf("\nStructured content:\n");
  return at === -1 ? output : output.slice(0, at);
}

async function direct(gatewayUrl, session, dir) {
  const call = async (name, args) => {
    const result = await json(`${gatewayUrl}/v1/sessions/${session}/tools/call`, { method: "POST", body: JSON.stringify({ name, arguments: args }) });
    if (result.isError) throw new Error(`${name}: ${result.output}`);
    return result;
  };
  const started = performance.now();
  const listing = await call("fs_list_directory", { path: dir });
  const names = listing.output.split("\n").filter((line) => line.startsWith("[FILE] ")).map((line) => line.slice(7));
  const reads = await Promise.all(names.map((name) => call("fs_read_text_file", { path: `${dir}/${name}` })));
  const counts = reads.map((r, i) => ({ name: names[i], lines: textPart(r.output).split("\n").filter((l) => l !== "").length }));
  counts.sort((a, b) => b.lines - a.lines || a.name.localeCompare(b.name));
  const ms = performance.now() - started;
  const results = [listing, ...reads];
  const tokens = results.reduce((n, r) => n + encode(r.output).length, 0);
  const textTokens = results.reduce((n, r) => n + encode(textPart(r.output)).length, 0);
  return { ms, tokens, textTokens, calls: reads.length + 1, largest: counts.slice(0, 5) };
}

async function script(gatewayUrl, session, dir) {
  const code = SCRIPT(dir);
  const started = performance.now();
  const answer = await json(`${gatewayUrl}/v1/sessions/${session}/exec`, { method: "POST", body: JSON.stringify({ code, timeoutMs: 120_000 }) });
  const ms = performance.now() - started;
  if (answer.error) throw new Error(`the script failed: ${answer.error.message}`);
  return { ms, tokens: encode(JSON.stringify(answer)).length, codeTokens: encode(code).length, calls: answer.calls.length, largest: answer.result.largest };
}

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), min: sorted[0] };
}

const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

async function main() {
  const cleanup = cleanupStack();
  try {
    const dir = mkdtempSync(join(tmpdir(), "mcp-edge-code-mode-"));
    cleanup.add(async () => rmSync(dir, { recursive: true, force: true }));
    const expected = makeFiles(dir);

    const sandboxes = ["loader", "quickjs"];
    const [entryPort, ...ports] = await Promise.all([freePort(), ...sandboxes.map(() => freePort())]);
    const base = gatewayWorker();
    const mf = new Miniflare(
      convertV4MiniflareOptions({
        host: "127.0.0.1",
        port: entryPort,
        workers: sandboxes.map((sandbox, i) =>
          gatewayWorker(
            {
              unsafeDirectSockets: [{ host: "127.0.0.1", port: ports[i] }],
              bindings: { ...base.bindings, BRIDGE_TOKENS: `local:${BRIDGE_TOKEN}`, CODE_SANDBOX: sandbox, CODE_MODE_MAX_CALLS: String(FILES + 10) },
              ...(sandbox === "loader" ? { workerLoaders: { LOADER: {} } } : {}),
            },
            { name: `mcp-edge-${sandbox}` },
          ),
        ),
      }),
    );
    cleanup.add(() => mf.dispose());
    await mf.ready;

    const config = join(dir, "..", `${dir.split("/").pop()}-bridge.json`);
    writeFileSync(config, JSON.stringify({ mcpServers: { filesystem: { command: process.execPath, args: [FILESYSTEM, dir], cwd: dir } } }));
    cleanup.add(async () => rmSync(config, { force: true }));

    const gateways = {};
    for (const [i, sandbox] of sandboxes.entries()) {
      const url = `http://127.0.0.1:${ports[i]}`;
      const bridgeId = `bench-${sandbox}`;
      const bridge = startProcess(`bridge-${sandbox}`, [BRIDGE_CLI, "--gateway", url, "--config", config, "--id", bridgeId], { MCP_EDGE_BRIDGE_TOKEN: BRIDGE_TOKEN });
      cleanup.add(() => bridge.stop());
      await waitForBridge(url, bridgeId, bridge);
      const session = await json(`${url}/v1/sessions`, { method: "POST", body: JSON.stringify({ servers: { fs: { type: "local", bridge: bridgeId, server: "filesystem" } } }) });
      if (session.servers.fs?.status !== "connected") throw new Error(`fs on ${sandbox}: ${JSON.stringify(session.servers.fs)}`);
      gateways[sandbox] = { url, session: session.id };
    }

    // The server's roots are its cwd (the bridge answers roots/list with it): the directory.
    // Sandbox start first, so "cold" is the first script run in this workerd.
    const start = {};
    for (const sandbox of sandboxes) {
      const { url, session } = gateways[sandbox];
      const exec = () => json(`${url}/v1/sessions/${session}/exec`, { method: "POST", body: JSON.stringify({ code: "return 1" }) });
      const cold = await timed(exec);
      const warm = [];
      const baseline = [];
      for (let i = 0; i < START_RUNS; i++) {
        warm.push(await timed(exec));
        baseline.push(await timed(() => json(`${url}/v1/sessions/${session}`)));
      }
      start[sandbox] = { coldMs: round(cold), warm: stats(warm), baseline: stats(baseline) };
    }

    const task = { direct: [], loader: [], quickjs: [] };
    for (let run = 0; run < RUNS; run++) {
      task.direct.push(await direct(gateways.loader.url, gateways.loader.session, dir));
      for (const sandbox of sandboxes) task[sandbox].push(await script(gateways[sandbox].url, gateways[sandbox].session, dir));
    }
    for (const [path, runs] of Object.entries(task)) {
      for (const r of runs) if (JSON.stringify(r.largest) !== JSON.stringify(expected)) throw new Error(`${path} found ${JSON.stringify(r.largest)}, expected ${JSON.stringify(expected)}`);
    }

    const summary = Object.fromEntries(
      Object.entries(task).map(([path, runs]) => [
        path,
        {
          calls: runs[0].calls,
          tokensToModel: runs[0].tokens,
          ...(runs[0].textTokens ? { textOnlyTokens: runs[0].textTokens } : {}),
          ...(runs[0].codeTokens ? { scriptTokens: runs[0].codeTokens } : {}),
          wallMs: stats(runs.map((r) => r.ms)),
        },
      ]),
    );
    console.log(`\ncode mode: list ${FILES} files, read them, count lines, top 5 (server-filesystem over the bridge); ${RUNS} runs per path`);
    console.log("| path | tool calls | tokens to the model | text parts only | script tokens (model output) | wall p50 ms | wall min ms |");
    console.log("| --- | --- | --- | --- | --- | --- | --- |");
    for (const [path, s] of Object.entries(summary)) {
      const label = path === "direct" ? "direct tool calls" : `one script (${path})`;
      const n = (v) => (v === undefined ? "–" : v.toLocaleString("en"));
      console.log(`| ${label} | ${s.calls} | ${n(s.tokensToModel)} | ${n(s.textOnlyTokens)} | ${n(s.scriptTokens)} | ${round(s.wallMs.p50)} | ${round(s.wallMs.min)} |`);
    }
    console.log(`\nsandbox start: POST /exec "return 1" vs GET /v1/sessions/:id (baseline); ${START_RUNS} warm runs`);
    console.log("| sandbox | cold ms | warm p50 ms | warm p90 ms | baseline p50 ms | start ≈ p50 − baseline |");
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const [sandbox, s] of Object.entries(start)) {
      console.log(`| ${sandbox} | ${s.coldMs} | ${round(s.warm.p50, 2)} | ${round(s.warm.p90, 2)} | ${round(s.baseline.p50, 2)} | ${round(s.warm.p50 - s.baseline.p50, 2)} |`);
    }
    await mkdir(`${root}bench/results`, { recursive: true });
    await writeFile(
      RESULTS,
      JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, files: FILES, runs: RUNS, tokenizer: "gpt-tokenizer o200k_base", task: summary, start, gateway: GATEWAY_SCRIPT }, null, 2) + "\n",
    );
    console.log(`\nresults: ${RESULTS.slice(root.length)}`);
  } finally {
    await cleanup.run();
  }
}

await main();
