/**
 * What hostile input costs (docs/RELIABILITY.md quotes these figures), plain Node, seconds:
 *
 * 1. The SSE parser on one large data line (a 10 MB tool result) fed in 16 KB and 64 KB
 *    chunks, as the streamable HTTP transport reads it: this tree's parser against the one
 *    before the property tests (git show BEFORE:src/core/sse-parser.ts), median of 3.
 * 2. A search over a 2-tool index with hostile 100,000-character queries (a quote storm,
 *    one enormous word, many clauses): only the first MAX_SEARCH_QUERY_CHARS are read.
 *
 *   node bench/hostile-input.mjs [BEFORE=60529a1]
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { build } from "esbuild";
import { root } from "./search-lib.mjs";

const before = process.argv[2] ?? "60529a1";

async function load(entry, contents) {
  const result = await build({
    ...(contents ? { stdin: { contents, loader: "ts", resolveDir: join(root, "src/core") } } : { entryPoints: [join(root, entry)] }),
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2023",
    write: false,
    logLevel: "silent",
  });
  return import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].text).toString("base64")}`);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeParser(createSseParser, size, chunk) {
  const text = `data: ${"x".repeat(size)}\n\n`;
  const runs = [];
  for (let r = 0; r < 3; r++) {
    const parser = createSseParser();
    const t0 = performance.now();
    let events = 0;
    for (let at = 0; at < text.length; at += chunk) events += parser.push(text.slice(at, at + chunk)).length;
    runs.push(performance.now() - t0);
    if (events !== 1) throw new Error("expected one event");
  }
  return median(runs);
}

const now = await load("src/core/sse-parser.ts");
const old = await load(null, execFileSync("git", ["show", `${before}:src/core/sse-parser.ts`], { cwd: root, encoding: "utf8" }));

console.log("SSE parser, one 10 MB data line (median of 3, ms)");
console.log("| chunk | before | now |");
console.log("| --- | --- | --- |");
for (const chunk of [16_384, 65_536]) {
  console.log(`| ${chunk / 1024} KB | ${timeParser(old.createSseParser, 10_000_000, chunk).toFixed(0)} | ${timeParser(now.createSseParser, 10_000_000, chunk).toFixed(1)} |`);
}

const search = await load("src/core/search/index.ts");
const index = search.buildSearchIndex([
  { id: "a", server: "fs", name: "read_file", description: "read a file" },
  { id: "b", server: "fs", name: "aaaaaaaa", description: "letters" },
]);
console.log(`\nSearch, hostile 100,000-character queries (only the first ${search.MAX_SEARCH_QUERY_CHARS} read; median of 3, ms)`);
console.log("| query | ms |");
console.log("| --- | --- |");
for (const [label, query] of [
  ["quote storm ` 'a` × 33,333", " 'a".repeat(33_333)],
  ["one 100,000-letter word", "a".repeat(100_000)],
  ["`then read. ` × 9,090", "then read. ".repeat(9_090)],
]) {
  const runs = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    search.searchIndex(index, query);
    runs.push(performance.now() - t0);
  }
  console.log(`| ${label} | ${median(runs).toFixed(1)} |`);
}
