/**
 * Tool search for progressive discovery: a BM25F index over tool names, descriptions,
 * server names and descriptions and input-schema properties, built once per catalog,
 * queried in well under a millisecond per thousand tools, and serializable for a cache.
 * Pure: no runtime APIs, deterministic for a given catalog whatever its order.
 *
 *   const index = buildSearchIndex(docs);
 *   searchIndex(index, "update salesforce record", { limit: 8 }); // [{ id, score }, …]
 */
import { finalizeIndex, type SearchIndex } from "./bm25f.js";
import { buildIndexCore } from "./postings.js";
import { search } from "./search.js";
import { resolveSearchConfig, type SearchConfigOverride } from "./config.js";
import type { SearchDocument, SearchHit, SearchOptions } from "./types.js";

export type { SearchIndex } from "./bm25f.js";
export { DEFAULT_SEARCH_CONFIG, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_QUERY_CHARS, resolveSearchConfig, type SearchConfigOverride } from "./config.js";
export { SearchError, type SearchErrorCode } from "./errors.js";
export { collectSchemaText, type SchemaText } from "./fields.js";
export { deserializeSearchIndex, parseSearchIndex, serializeSearchIndex, SEARCH_INDEX_FORMAT, SEARCH_INDEX_VERSION, type ParseResult } from "./serialize.js";
export { createTokenizer, type Tokenizer } from "./tokenize.js";
export {
  FIELD_NAMES,
  type FieldConfig,
  type FieldName,
  type SearchConfig,
  type SearchDocument,
  type SearchHit,
  type SearchOptions,
  type StemmerName,
  type TokenizerConfig,
} from "./types.js";

/** Indexes `docs` (ids must be unique) with the tuned configuration, or `config` over it. */
export function buildSearchIndex(docs: readonly SearchDocument[], config?: SearchConfigOverride): SearchIndex {
  return finalizeIndex(buildIndexCore(docs, resolveSearchConfig(config)));
}

/** The best `limit` (default 8) documents for `query` that pass `filter`, best first, ties by id. */
export function searchIndex(index: SearchIndex, query: string, options?: SearchOptions): SearchHit[] {
  return search(index, query, options);
}
