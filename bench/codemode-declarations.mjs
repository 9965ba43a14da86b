/**
 * Code mode's declarations, measured: what the model is handed (tokens with a real
 * tokenizer, gpt-tokenizer's o200k_base) as plain tool definitions vs the one `execute`
 * tool, for real servers (server-everything and server-filesystem, listed live over
 * stdio) and for the 2,375-tool ETOM catalog; the generator's time, and what a listing
 * costs a session (declarations bounded to the largest budget once per catalog, then
 * the execute tool per window); and whether the
 * declarations of the whole large catalog compile (tsgo). The production modules
 * (src/core) are bundled with esbuild and imported as is. Plain Node:
 *
 *   node bench/codemode-declarations.mjs      (BENCH_RUNS: timed runs of the generator, default 20)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { build } from "esbuild";
import { countTokens } from "gpt-tokenizer";
import { readJsonl, root } from "./search-lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const ETOM = "/work/shared/eval/toolsearch/catalog.jsonl";

async function loadCore() {
  const entry = `
    export { buildCatalog, toCachedTool } from "./src/core/catalog.ts";
    export { codeModeDeclarations } from "./src/core/codemode/declarations.ts";
    export { declarationsForBudget, executeTool } from "./src/core/codemode/execute-tool.ts";`;
  const result = await build({ stdin: { contents: entry, resolveDir: root, loader: "ts" }, bundle: true, format: "esm", platform: "node", write: false, logLevel: "silent" });
  return import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].text).toString("base64")}`);
}

async function liveTools(args) {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }));
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

/** What a provider sends per tool: name, description, JSON Schema of the input. */
const definitionsTokens = (tools) => countTokens(JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }))));
const executeTokens = (tool) => countTokens(JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.inputSchema }));

function typechecks(declarations) {
  const dir = mkdtempSync(join(tmpdir(), "bench-decls-"));
  try {
    writeFileSync(join(dir, "declarations.d.ts"), declarations);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, lib: ["es2023"], types: [] }, files: ["declarations.d.ts"] }));
    const started = performance.now();
    const run = spawnSync(`${root}node_modules/.bin/tsc`, ["-p", dir], { encoding: "utf8" });
    return { ok: run.status === 0, ms: performance.now() - started, errors: (run.stdout.match(/error TS/g) ?? []).length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const core = await loadCore();
const rows = [];

const fsDir = mkdtempSync(join(tmpdir(), "bench-fs-"));
const [everything, filesystem] = await Promise.all([
  liveTools([`${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`, "stdio"]),
  liveTools([`${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`, fsDir]),
]);
rmSync(fsDir, { recursive: true, force: true });
const real = core.buildCatalog(
  [
    { server: "everything", tools: everything.map(core.toCachedTool) },
    { server: "filesystem", tools: filesystem.map(core.toCachedTool) },
  ],
  { withResourceTools: false },
);
const realExecute = core.executeTool(real.tools);
rows.push({ catalog: "everything + filesystem", tools: real.tools.length, style: realExecute.style, definitions: definitionsTokens(real.tools), execute: executeTokens(realExecute.tool) });

let large;
if (existsSync(ETOM)) {
  const lines = readJsonl(ETOM);
  const servers = new Map();
  for (const t of lines) (servers.get(t.server) ?? servers.set(t.server, []).get(t.server)).push(core.toCachedTool(t));
  const catalog = core.buildCatalog([...servers].map(([server, tools]) => ({ server, tools })), { withResourceTools: false });
  const times = [];
  let declarations = "";
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    declarations = core.codeModeDeclarations(catalog.tools);
    times.push(performance.now() - started);
  }
  const bounded = [];
  const perWindow = [];
  for (let i = 0; i < RUNS; i++) {
    let started = performance.now();
    const once = core.declarationsForBudget(catalog.tools);
    bounded.push(performance.now() - started);
    started = performance.now();
    core.executeTool(catalog.tools, { contextWindow: 128_000, usedTokens: 1_000 * i }, once);
    perWindow.push(performance.now() - started);
  }
  const check = typechecks(declarations);
  const execute128k = core.executeTool(catalog.tools, { contextWindow: 128_000 });
  rows.push({ catalog: "ETOM (all declared)", tools: catalog.tools.length, style: "declarations", definitions: definitionsTokens(catalog.tools), execute: countTokens(declarations) });
  rows.push({ catalog: "ETOM, execute tool at 128k", tools: catalog.tools.length, style: execute128k.style, definitions: definitionsTokens(catalog.tools), execute: executeTokens(execute128k.tool) });
  large = {
    medianMs: median(times),
    bestMs: Math.min(...times),
    chars: declarations.length,
    typecheck: check,
    boundedMedianMs: median(bounded),
    perWindowMedianMs: median(perWindow),
  };
}

console.log("| catalog | tools | execute style | tool definitions (tokens) | execute / declarations (tokens) | ratio |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.catalog} | ${r.tools} | ${r.style} | ${r.definitions.toLocaleString("en")} | ${r.execute.toLocaleString("en")} | ${(r.execute / r.definitions).toFixed(2)} |`);
if (large) {
  console.log(
    `\ngenerator, ${rows[1].tools} tools: median ${large.medianMs.toFixed(1)} ms (best ${large.bestMs.toFixed(1)}) over ${RUNS} runs, ${large.chars.toLocaleString("en")} characters; ` +
      `tsc --noEmit on them: ${large.typecheck.ok ? "compiles" : `${large.typecheck.errors} errors`} in ${Math.round(large.typecheck.ms)} ms`,
  );
  console.log(
    `a session listing it in code mode: declarations bounded to the largest budget, once per catalog: median ${large.boundedMedianMs.toFixed(2)} ms; ` +
      `then the execute tool per window: median ${large.perWindowMedianMs.toFixed(2)} ms`,
  );
}
console.log(JSON.stringify({ rows, large }));
