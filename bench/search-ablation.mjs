/**
 * What each part of the tuned tool search buys, on the development queries of both
 * benchmarks (ETOM and LiveMCPBench): a reference plain BM25 (to check the metrics
 * against the figures published with the data), then the production search from a
 * plain-BM25 configuration, adding one technique per row up to DEFAULT_SEARCH_CONFIG,
 * then the default with one technique removed or swapped. Runs in well under a minute.
 *
 *   node bench/search-ablation.mjs [--markdown]
 */
import { parseArgs } from "node:util";
import { DATASETS, evaluate, loadCatalog, loadQueries, loadSearch, percentages, runEval } from "./search-lib.mjs";

const { values } = parseArgs({ options: { markdown: { type: "boolean", default: false } } });
const search = await loadSearch();
const data = Object.fromEntries(
  Object.entries(DATASETS).map(([name, files]) => [name, { docs: loadCatalog(files.catalog), queries: loadQueries(files.queries) }]),
);

/** Plain BM25 (k1 1.2, b 0.75) over one bag of words: name, name split on "_", description, schema property names and descriptions. */
function plainBm25(docs, queries) {
  const tokens = (text) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const k1 = 1.2;
  const b = 0.75;
  const bags = docs.map((doc) => {
    const schema = search.collectSchemaText(doc.inputSchema, 8, 500);
    const words = [doc.name, doc.name.replace(/_/g, " "), doc.description ?? "", ...schema.names, ...schema.descriptions].flatMap(tokens);
    const tf = new Map();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { tf, length: words.length };
  });
  const average = bags.reduce((sum, bag) => sum + bag.length, 0) / bags.length;
  const df = new Map();
  for (const { tf } of bags) for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = docs.length;
  const rankings = queries.map((q) => {
    const terms = tokens(q.query);
    return bags
      .map(({ tf, length }, i) => {
        let score = 0;
        for (const t of terms) {
          const f = tf.get(t);
          if (!f) continue;
          const idf = Math.log(1 + (n - df.get(t) + 0.5) / (df.get(t) + 0.5));
          score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * length) / average));
        }
        return [docs[i].id, score];
      })
      .filter(([, score]) => score > 0)
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
      .map(([id]) => id);
  });
  return evaluate(queries, rankings).metrics;
}

const merge = (base, extra) => ({
  ...base,
  ...extra,
  fields: Object.fromEntries(Object.keys({ ...base.fields, ...extra.fields }).map((f) => [f, { ...base.fields?.[f], ...extra.fields?.[f] }])),
  tokenizer: { ...base.tokenizer, ...extra.tokenizer },
});

const PLAIN = {
  k1: 1.2,
  fields: {
    name: { weight: 1, b: 0.75 },
    nameWords: { weight: 1, b: 0.75 },
    description: { weight: 1, b: 0.75 },
    server: { weight: 0, b: 0.75 },
    serverDescription: { weight: 0, b: 0.75 },
    paramNames: { weight: 1, b: 0.75 },
    paramDescriptions: { weight: 1, b: 0.75 },
  },
  tokenizer: { splitIdentifiers: false, keepCompounds: false, stopWords: false, stemmer: "none", minTermLength: 1 },
  idfExponent: 1,
  dedupeQueryTerms: false,
  argumentWeight: 1,
  prefixWeight: 0,
  minPrefixLength: 6,
  nameCoverageBoost: 0,
  serverPooling: 0,
  clauseWeight: 0,
};

const D = search.DEFAULT_SEARCH_CONFIG;
const steps = [
  ["BM25F, plain configuration (fields as the reference, no server fields)", {}],
  ["+ count a repeated query word once", { dedupeQueryTerms: true }],
  ["+ split identifiers (snake, kebab, camelCase, digits), drop 1-letter terms", { tokenizer: { splitIdentifiers: true, minTermLength: 2 } }],
  ["+ keep split identifiers joined too (compounds)", { tokenizer: { keepCompounds: true } }],
  ["+ English stop words", { tokenizer: { stopWords: true } }],
  ["+ server name and server description fields", { fields: { server: { weight: 1 }, serverDescription: { weight: 1 } } }],
  ["+ field weights and per-field b (tuned)", { fields: D.fields }],
  ["+ IDF^0.5 (flatter IDF)", { idfExponent: D.idfExponent }],
  ["+ name coverage boost 0.25", { nameCoverageBoost: D.nameCoverageBoost }],
  ["+ server pooling 0.3", { serverPooling: D.serverPooling }],
  ["+ quoted strings, URLs, e-mails weigh 0.25", { argumentWeight: D.argumentWeight }],
  ["+ clause fusion 0.5", { clauseWeight: D.clauseWeight }],
  ["+ prefixes (≥ 6 chars) of query words at 0.25 (= DEFAULT_SEARCH_CONFIG)", { prefixWeight: D.prefixWeight, minPrefixLength: D.minPrefixLength }],
];
const variants = [
  ["default, stemmer plural", { tokenizer: { stemmer: "plural" } }],
  ["default, stemmer light", { tokenizer: { stemmer: "light" } }],
  ["default, stemmer porter", { tokenizer: { stemmer: "porter" } }],
  ["default, k1 1.0", { k1: 1 }],
  ["default, k1 1.5", { k1: 1.5 }],
  ["default, every field b 0.75", { fields: Object.fromEntries(Object.keys(D.fields).map((f) => [f, { b: 0.75 }])) }],
  ["default without stop words", { tokenizer: { stopWords: false } }],
  ["default without compounds", { tokenizer: { keepCompounds: false } }],
  ["default without server description", { fields: { serverDescription: { weight: 0 } } }],
  ["default without schema descriptions", { fields: { paramDescriptions: { weight: 0 } } }],
  ["default with IDF^1", { idfExponent: 1 }],
  ["default without name coverage boost", { nameCoverageBoost: 0 }],
  ["default without server pooling", { serverPooling: 0 }],
  ["default without argument weighting", { argumentWeight: 1 }],
  ["default without clause fusion", { clauseWeight: 0 }],
  ["default without prefixes", { prefixWeight: 0 }],
  ["default, prefixes ≥ 5 chars", { minPrefixLength: 5 }],
];

const COLUMNS = ["ETOM R@1", "R@5", "R@10", "MRR", "C@10", "LMB R@1", "R@5", "R@10", "MRR", "C@10"];
const rows = [];
const row = (label, etom, lmb) => {
  const e = percentages(etom);
  const l = percentages(lmb);
  rows.push([label, e["recall@1"], e["recall@5"], e["recall@10"], e.mrr, e["complete@10"], l["recall@1"], l["recall@5"], l["recall@10"], l.mrr, l["complete@10"]]);
};

row("reference: plain BM25, one bag of words (README: ETOM 70.3/89.8/93.5/87.9, LMB R@10 46.8)", plainBm25(data.etom.docs, data.etom.queries), plainBm25(data.lmb.docs, data.lmb.queries));
let config = PLAIN;
for (const [label, change] of steps) {
  config = merge(config, change);
  row(label, runEval(search, data.etom.docs, data.etom.queries, config).metrics, runEval(search, data.lmb.docs, data.lmb.queries, config).metrics);
}
const tuned = JSON.stringify(search.resolveSearchConfig(config)) === JSON.stringify(D);
for (const [label, change] of variants) {
  const variant = merge(D, change);
  row(label, runEval(search, data.etom.docs, data.etom.queries, variant).metrics, runEval(search, data.lmb.docs, data.lmb.queries, variant).metrics);
}

if (values.markdown) {
  console.log(`| change | ${COLUMNS.join(" | ")} |`);
  console.log(`| --- | ${COLUMNS.map(() => "---:").join(" | ")} |`);
  for (const r of rows) console.log(`| ${r[0]} | ${r.slice(1).map((x) => x.toFixed(1)).join(" | ")} |`);
} else {
  console.log(`${"".padEnd(78)} ${COLUMNS.map((c) => c.padStart(8)).join("")}`);
  for (const r of rows) console.log(`${r[0].slice(0, 78).padEnd(78)} ${r.slice(1).map((x) => x.toFixed(1).padStart(8)).join("")}`);
}
if (!tuned) console.log("\nwarning: the last cumulative row is not DEFAULT_SEARCH_CONFIG");
