/**
 * Tool-search speed and context savings, plain Node, under a minute:
 *
 * 1. Build time of an index of 10,000 tools (the 2,375-tool ETOM catalog, then renamed
 *    copies of it: each copy is the same servers under new names, as when one server is
 *    configured several times), median and best of 10 builds after warm-up; also the
 *    same with every text made distinct (two catalog words appended to each), so that no
 *    text is tokenized only once: the worst case for the build's text cache.
 * 2. Query latency on that index, p50/p99 over the development queries of both
 *    benchmarks (default limit 8), several rounds.
 * 3. Serialized size and load time of that index (the KV path).
 * 4. Tokens (ceil(chars/4) of the JSON of {name, description, inputSchema}) of the full
 *    2,375-tool catalog against what search mode hands the model: the six meta-tools
 *    (search_tools carrying the catalog text within its 20,000-token budget) plus up to
 *    8 search hits without schemas, averaged over the development queries.
 *
 *   node bench/search.mjs
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { build } from "esbuild";
import { DATASETS, loadCatalog, loadQueries, loadSearch, root } from "./search-lib.mjs";

const TOOLS = 10_000;
const BUILD_RUNS = 10;
const WARMUP_RUNS = 3;
const QUERY_ROUNDS = 5;
const HITS = 8;

const search = await loadSearch();
const discovery = await loadDiscovery();
const base = loadCatalog(DATASETS.etom.catalog);
const queries = [...loadQueries(DATASETS.etom.queries), ...loadQueries(DATASETS.lmb.queries)].map((q) => q.query);

/** The production discovery pieces (meta-tools, catalog text, token estimate, naming), bundled like the search module. */
async function loadDiscovery() {
  const result = await build({
    stdin: {
      contents: [
        'export { metaToolDefinitions, searchModeMetaTools } from "./src/core/discovery/meta-tools.ts";',
        'export { renderCatalog } from "./src/core/discovery/catalog-text.ts";',
        'export { estimateTokens, estimateToolsTokens } from "./src/core/discovery/tokens.ts";',
        'export { nameTools } from "./src/core/naming.ts";',
      ].join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
    logLevel: "silent",
  });
  return import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].text).toString("base64")}`);
}

/** Words of the catalog's descriptions, to make texts distinct without inventing vocabulary. */
const VOCABULARY = [...new Set(base.flatMap((doc) => (doc.description ?? "").split(/\s+/)).filter((w) => /^[a-z]{4,}$/.test(w)))].sort();

/** `base`, then copies under new server names, up to `count` tools; `distinct` also makes every text unique (two catalog words appended). */
function replicate(count, distinct) {
  const docs = [];
  for (let copy = 0; docs.length < count; copy++) {
    for (const doc of base) {
      if (docs.length >= count) break;
      if (copy === 0) {
        docs.push(doc);
        continue;
      }
      const server = `${doc.server} copy${copy}`;
      const mark = distinct ? ` ${VOCABULARY[(docs.length * 7919) % VOCABULARY.length]} ${VOCABULARY[(docs.length * 104729 + copy) % VOCABULARY.length]}` : "";
      docs.push({
        ...doc,
        id: `${server}/${doc.name}`,
        server,
        description: (doc.description ?? "") + mark,
        serverDescription: doc.serverDescription === undefined ? undefined : doc.serverDescription + mark,
        inputSchema: distinct ? JSON.parse(JSON.stringify(doc.inputSchema ?? {}).replaceAll('"description":"', `"description":"${mark} `)) : doc.inputSchema,
      });
    }
  }
  return docs;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(x < 10 ? 2 : 1)} ms`;

function timeBuilds(docs) {
  for (let i = 0; i < WARMUP_RUNS; i++) search.buildSearchIndex(docs);
  const times = [];
  for (let i = 0; i < BUILD_RUNS; i++) {
    const start = performance.now();
    search.buildSearchIndex(docs);
    times.push(performance.now() - start);
  }
  return { median: median(times), best: Math.min(...times) };
}

// 1. Build.
const copies = replicate(TOOLS, false);
const distinct = replicate(TOOLS, true);
const buildCopies = timeBuilds(copies);
const buildDistinct = timeBuilds(distinct);
const buildBase = timeBuilds(base);

// 2. Queries.
const index = search.buildSearchIndex(copies);
for (const q of queries) search.searchIndex(index, q);
const latencies = [];
for (let round = 0; round < QUERY_ROUNDS; round++) {
  for (const q of queries) {
    const start = performance.now();
    search.searchIndex(index, q);
    latencies.push(performance.now() - start);
  }
}

// 3. Serialized index.
const text = search.serializeSearchIndex(index);
const loads = [];
for (let i = 0; i < 5; i++) {
  const start = performance.now();
  search.deserializeSearchIndex(text);
  loads.push(performance.now() - start);
}

// 4. Tokens: the full catalog (model-facing names) against search mode.
const named = discovery.nameTools(base.map((doc) => ({ server: doc.server, tool: doc.name, doc })));
const fullTools = named.map(({ name, entry }) => ({ name, description: entry.doc.description, inputSchema: entry.doc.inputSchema }));
const fullTokens = discovery.estimateToolsTokens(fullTools);
// Search mode hands the model the meta-tools, the catalog inside search_tools' description sized so both fit the budget.
const { tools: metaTools, catalog } = discovery.searchModeMetaTools(named.map(({ name, entry }) => ({ name, server: entry.server, description: entry.doc.description })));
const metaTokens = discovery.estimateToolsTokens(metaTools);
const baseIndex = search.buildSearchIndex(named.map(({ name, entry }) => ({ ...entry.doc, id: name })));
const byName = new Map(named.map((n) => [n.name, n]));
let hitTokens = 0;
for (const q of queries) {
  const hits = search.searchIndex(baseIndex, q, { limit: HITS }).map(({ id, score }) => {
    const { entry } = byName.get(id);
    return { name: id, server: entry.server, description: entry.doc.description ?? "", score: Math.round(score * 1000) / 1000 };
  });
  hitTokens += discovery.estimateTokens(JSON.stringify(hits));
}
hitTokens /= queries.length;
// The tools array of a search-mode turn before any search: the meta-tools (catalog included).
const searchTokens = metaTokens;
const metaOnlyTokens = discovery.estimateToolsTokens(discovery.metaToolDefinitions(""));
const window128k = discovery.searchModeMetaTools(
  named.map(({ name, entry }) => ({ name, server: entry.server, description: entry.doc.description })),
  { contextWindow: 128_000 },
);
const tokens128k = discovery.estimateToolsTokens(window128k.tools);

const result = {
  buildMs: { tools: copies.length, median: round(buildCopies.median), best: round(buildCopies.best) },
  buildDistinctTextsMs: { tools: distinct.length, median: round(buildDistinct.median), best: round(buildDistinct.best) },
  build2375Ms: { median: round(buildBase.median), best: round(buildBase.best) },
  queryMs: { queries: latencies.length, p50: round(percentile(latencies, 0.5), 3), p99: round(percentile(latencies, 0.99), 3) },
  serialized: { megabytes: round(text.length / 1e6, 2), loadMs: round(median(loads)) },
  tokens: {
    fullCatalog: fullTokens,
    searchMode: Math.round(searchTokens),
    metaToolsWithCatalog: metaTokens,
    catalogStyle: catalog.style,
    catalogOmitted: catalog.omitted,
    hitsAverage: Math.round(hitTokens),
    ratioPercent: round((100 * searchTokens) / fullTokens, 2),
    withOneSearchPercent: round((100 * (searchTokens + hitTokens)) / fullTokens, 2),
    withoutCatalogTextPercent: round((100 * (metaOnlyTokens + hitTokens)) / fullTokens, 2),
    window128kPercent: round((100 * tokens128k) / fullTokens, 2),
  },
};

function round(x, digits = 1) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

console.log(`index build, ${copies.length} tools (renamed copies):   median ${ms(buildCopies.median)}, best ${ms(buildCopies.best)}   (target ≤ 150 ms)`);
console.log(`index build, ${distinct.length} tools, every text distinct: median ${ms(buildDistinct.median)}, best ${ms(buildDistinct.best)}`);
console.log(`index build, ${base.length} tools (ETOM catalog):         median ${ms(buildBase.median)}, best ${ms(buildBase.best)}`);
console.log(`query, ${copies.length} tools, ${latencies.length} runs:             p50 ${ms(percentile(latencies, 0.5))}, p99 ${ms(percentile(latencies, 0.99))}   (target p50 ≤ 2 ms)`);
console.log(`serialized index, ${copies.length} tools:                ${(text.length / 1e6).toFixed(2)} MB, load ${ms(median(loads))}`);
console.log(
  `tokens: full catalog ${fullTokens} vs search mode ${Math.round(searchTokens)} (meta-tools with the ${catalog.style} catalog` +
    `${catalog.omitted ? `, ${catalog.omitted} tools left out of the catalog text` : ""}): ${((100 * searchTokens) / fullTokens).toFixed(2)}%   (target ≤ 5%)`,
);
console.log(
  `  plus one search's ${HITS} hits (≈ ${Math.round(hitTokens)}) ${((100 * (searchTokens + hitTokens)) / fullTokens).toFixed(2)}%; ` +
    `meta-tools without the catalog text ${((100 * metaOnlyTokens) / fullTokens).toFixed(2)}%; ` +
    `with a 128k-token window ${((100 * tokens128k) / fullTokens).toFixed(2)}%`,
);
console.log(JSON.stringify(result));
