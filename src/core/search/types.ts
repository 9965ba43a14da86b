/**
 * The shapes of tool search: what callers index (a document per tool), what a query
 * returns (hits), and the one configuration that decides how text becomes terms and
 * how terms are scored. Everything here is plain data, so a configuration can be
 * stored beside a serialized index and a rebuilt index scores exactly the same.
 */

/** One searchable tool. */
export interface SearchDocument {
  /** Unique key: the model-facing tool name (or "server/name" in the eval). */
  id: string;
  /** The server's name. */
  server: string;
  /** The tool's own name. */
  name: string;
  description?: string;
  serverDescription?: string;
  /** JSON Schema object; property names and descriptions are collected recursively. */
  inputSchema?: unknown;
}

export interface SearchHit {
  id: string;
  score: number;
}

export interface SearchOptions {
  /** How many hits to return at most (default `DEFAULT_SEARCH_LIMIT`). */
  limit?: number;
  /** Only ids for which this returns true are returned. */
  filter?: (id: string) => boolean;
}

/** The fields a document's text is split into; BM25F weighs and normalizes each on its own. */
export const FIELD_NAMES = [
  "name",
  "nameWords",
  "description",
  "server",
  "serverDescription",
  "paramNames",
  "paramDescriptions",
] as const;

export type FieldName = (typeof FIELD_NAMES)[number];

export interface FieldConfig {
  /** BM25F weight: how much one occurrence in this field counts. */
  weight: number;
  /** Length normalization for this field, 0 (none) to 1 (full). */
  b: number;
}

/** Which stemmer runs on every term: none, plural-only, a light English suffix stripper, or Porter (1980). */
export type StemmerName = "none" | "plural" | "light" | "porter";

export interface TokenizerConfig {
  /** Split identifiers into words: snake_case, kebab-case, camelCase, letters/digits. */
  splitIdentifiers: boolean;
  /** Also keep a split identifier joined ("list_directory" → "listdirectory"). */
  keepCompounds: boolean;
  /** Drop common English words. */
  stopWords: boolean;
  stemmer: StemmerName;
  /** Terms shorter than this (in characters) are dropped; single digits count as terms only if this is 1. */
  minTermLength: number;
}

export interface SearchConfig {
  /** BM25 term-frequency saturation. */
  k1: number;
  fields: Record<FieldName, FieldConfig>;
  tokenizer: TokenizerConfig;
  /** IDF is raised to this power: 1 is plain BM25, below 1 flattens it (long tasks name many rare words). */
  idfExponent: number;
  /** Count a repeated query word once. */
  dedupeQueryTerms: boolean;
  /** Weight of query words inside quotes, URLs and e-mail addresses (argument values, not intent). */
  argumentWeight: number;
  /** Weight of an indexed term that is a prefix of a longer query word ("crypto" for "cryptocurrency"); 0 turns it off. */
  prefixWeight: number;
  /** The shortest prefix that counts. */
  minPrefixLength: number;
  /** A tool's score × (1 + this × the share of its distinct name words found in the query). */
  nameCoverageBoost: number;
  /** Every tool gains this × the best score among its server's tools. */
  serverPooling: number;
  /** In a task of several clauses, a tool gains this × its best share of a clause's top score (× the task's top score). */
  clauseWeight: number;
  /** Schema nesting levels walked for property names and descriptions. */
  schemaMaxDepth: number;
  /** Schema nodes visited per tool at most (a bound on the work for huge schemas). */
  schemaMaxNodes: number;
}
