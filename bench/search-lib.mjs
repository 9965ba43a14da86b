/**
 * Shared pieces of the tool-search scripts (eval, ablation, speed bench): the production
 * search module (src/core/search) bundled with esbuild and imported as is, the
 * benchmark files read into search documents and queries, and the metrics. Plain Node.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const root = fileURLToPath(new URL("..", import.meta.url));
export const EVAL_DIR = "/work/shared/eval/toolsearch";
export const DATASETS = {
  etom: { catalog: join(EVAL_DIR, "catalog.jsonl"), queries: join(EVAL_DIR, "queries.dev.jsonl") },
  lmb: { catalog: join(EVAL_DIR, "livemcpbench/catalog.jsonl"), queries: join(EVAL_DIR, "livemcpbench/queries.dev.jsonl") },
};

/** src/core/search/index.ts, bundled in memory (the imports use `.js` names for `.ts` files) and imported. */
export async function loadSearch() {
  const result = await build({
    entryPoints: [join(root, "src/core/search/index.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2023",
    write: false,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
}

export function readJsonl(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      try {
        return JSON.parse(line);
      } catch (error) {
        throw new Error(`${path}:${i + 1}: ${error.message}`);
      }
    });
}

/** Catalog lines → search documents (id = server + "/" + name), with server descriptions if a servers file exists. */
export function loadCatalog(catalogPath, serversPath) {
  const serversFile = serversPath ?? join(dirname(catalogPath), "servers.jsonl");
  const serverDescriptions = new Map();
  if (existsSync(serversFile)) {
    for (const s of readJsonl(serversFile)) if (typeof s.description === "string") serverDescriptions.set(s.server, s.description);
  }
  return readJsonl(catalogPath).map((tool) => ({
    id: `${tool.server}/${tool.name}`,
    server: tool.server,
    name: tool.name,
    description: tool.description ?? undefined,
    serverDescription: serverDescriptions.get(tool.server),
    inputSchema: tool.inputSchema,
  }));
}

export function loadQueries(path) {
  return readJsonl(path).map((q) => ({ ...q, groups: q.groups ?? q.relevant.map((id) => [id]) }));
}

/** Ranked ids per query → recall@1/5/10, MRR, complete@10 (fractions) and per-query details. */
export function evaluate(queries, rankings) {
  const sums = { r1: 0, r5: 0, r10: 0, mrr: 0, complete10: 0 };
  const perQuery = queries.map((q, i) => {
    const ranked = rankings[i];
    const rankOf = new Map(ranked.map((id, r) => [id, r + 1]));
    const groupRank = q.groups.map((group) => Math.min(...group.map((id) => rankOf.get(id) ?? Infinity)));
    const recall = (k) => groupRank.filter((r) => r <= k).length / q.groups.length;
    const first = Math.min(...q.relevant.map((id) => rankOf.get(id) ?? Infinity));
    const row = { id: q.id, r1: recall(1), r5: recall(5), r10: recall(10), mrr: first === Infinity ? 0 : 1 / first, complete10: groupRank.every((r) => r <= 10) ? 1 : 0, groupRank };
    for (const key of Object.keys(sums)) sums[key] += row[key];
    return row;
  });
  const n = queries.length || 1;
  const metrics = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / n]));
  return { metrics, perQuery };
}

/** Metrics as percentages with one decimal. */
export function percentages(metrics) {
  return {
    "recall@1": round1(metrics.r1 * 100),
    "recall@5": round1(metrics.r5 * 100),
    "recall@10": round1(metrics.r10 * 100),
    mrr: round1(metrics.mrr * 100),
    "complete@10": round1(metrics.complete10 * 100),
  };
}

const round1 = (x) => Math.round(x * 10) / 10;

/** Runs the production search over a catalog and its queries. */
export function runEval(search, docs, queries, config) {
  const index = search.buildSearchIndex(docs, config);
  const limit = Math.max(docs.length, 100);
  const rankings = queries.map((q) => search.searchIndex(index, q.query, { limit }).map((hit) => hit.id));
  return evaluate(queries, rankings);
}
