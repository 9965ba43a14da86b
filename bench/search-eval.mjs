/**
 * Tool-search quality: runs the production search (src/core/search, default
 * configuration) over a labelled catalog and prints recall@1/5/10, MRR and complete@10;
 * the last line is one JSON object with those figures (percentages, one decimal).
 *
 *   npm run eval:search -- --catalog FILE --queries FILE [--servers FILE] [--details]
 *
 * The servers file (server descriptions) defaults to servers.jsonl beside the catalog.
 * --details also prints every query whose groups are not all in the top 10.
 */
import { parseArgs } from "node:util";
import { DATASETS, evaluate, loadCatalog, loadQueries, loadSearch, percentages } from "./search-lib.mjs";

const { values } = parseArgs({
  options: {
    catalog: { type: "string", default: DATASETS.etom.catalog },
    queries: { type: "string", default: DATASETS.etom.queries },
    servers: { type: "string" },
    details: { type: "boolean", default: false },
  },
});

const search = await loadSearch();
const docs = loadCatalog(values.catalog, values.servers);
const queries = loadQueries(values.queries);
const index = search.buildSearchIndex(docs);
const limit = Math.max(docs.length, 100);
const rankings = queries.map((q) => search.searchIndex(index, q.query, { limit }).map((hit) => hit.id));
const { metrics, perQuery } = evaluate(queries, rankings);
const result = percentages(metrics);

if (values.details) {
  perQuery.forEach((row, i) => {
    if (row.complete10 === 1) return;
    const q = queries[i];
    console.log(`\n${q.id}: ${q.query.slice(0, 200)}`);
    q.groups.forEach((group, g) => console.log(`  group ${g + 1} rank ${row.groupRank[g]}: ${group.join(" | ")}`));
    console.log(`  top 5: ${rankings[i].slice(0, 5).join(" | ")}`);
  });
  console.log();
}

console.log(`catalog ${values.catalog}: ${docs.length} tools; queries ${values.queries}: ${queries.length}`);
for (const [name, value] of Object.entries(result)) console.log(`${name.padEnd(12)} ${value.toFixed(1)}`);
console.log(JSON.stringify(result));
