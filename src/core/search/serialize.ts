/**
 * A search index as compact JSON text, for a KV cache. It stores the configuration, the
 * ids, the field lengths and the postings; the scoring tables are recomputed on load
 * with the same code as after a build, so a loaded index ranks exactly like the built
 * one. Each term's postings are one flat list of numbers: per document, the gap from
 * the previous document number, a bit mask of the fields the term occurs in, and the
 * count in each of those fields. Text in another format or version is refused with
 * `SearchError("invalidIndex")`; `parseSearchIndex` returns that as a value.
 */
import { FIELD_COUNT, finalizeIndex, indexCore, MAX_TERM_COUNT, type IndexCore, type SearchIndex } from "./bm25f.js";
import { resolveSearchConfig, type SearchConfigOverride } from "./config.js";
import { SearchError } from "./errors.js";

export const SEARCH_INDEX_FORMAT = "mcp-edge/search-index";
/** Bump whenever the stored shape, the tokenizer or the scoring changes meaning. */
export const SEARCH_INDEX_VERSION = 1;

interface StoredIndex {
  format: typeof SEARCH_INDEX_FORMAT;
  version: typeof SEARCH_INDEX_VERSION;
  config: unknown;
  ids: string[];
  lengths: number[];
  servers: string[];
  docServers: number[];
  terms: string[];
  postings: number[][];
}

export type ParseResult = { success: true; value: SearchIndex } | { success: false; error: SearchError };

export function serializeSearchIndex(index: SearchIndex): string {
  const core = indexCore(index);
  const stored: StoredIndex = {
    format: SEARCH_INDEX_FORMAT,
    version: SEARCH_INDEX_VERSION,
    config: core.config,
    ids: [...core.ids],
    lengths: Array.from(core.lengths),
    servers: [...core.servers],
    docServers: Array.from(core.docServers),
    terms: [...core.terms],
    postings: core.terms.map((_, t) => encodePosting(core, t)),
  };
  return JSON.stringify(stored);
}

/** Reads a serialized index; throws `SearchError("invalidIndex")` if it is not one this version reads. */
export function deserializeSearchIndex(text: string): SearchIndex {
  const result = parseSearchIndex(text);
  if (!result.success) throw result.error;
  return result.value;
}

export function parseSearchIndex(text: string): ParseResult {
  try {
    return { success: true, value: finalizeIndex(decode(text)) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { success: false, error: new SearchError("invalidIndex", `Cannot read the search index: ${message}`) };
  }
}

/** Term t's postings: per entry the document gap, the field mask, the nonzero counts. */
function encodePosting({ offsets, docs, counts }: IndexCore, term: number): number[] {
  const out: number[] = [];
  let previous = 0;
  for (let e = offsets[term]!; e < offsets[term + 1]!; e++) {
    out.push(docs[e]! - previous);
    previous = docs[e]!;
    let mask = 0;
    for (let f = 0; f < FIELD_COUNT; f++) if (counts[e * FIELD_COUNT + f]! > 0) mask |= 1 << f;
    out.push(mask);
    for (let f = 0; f < FIELD_COUNT; f++) if (counts[e * FIELD_COUNT + f]! > 0) out.push(counts[e * FIELD_COUNT + f]!);
  }
  return out;
}

/** Appends one term's postings to `docs` and `counts`. */
function decodePosting(list: unknown, documentCount: number, docs: number[], counts: number[]): void {
  if (!Array.isArray(list)) throw new Error("a posting list is not an array");
  let doc = 0;
  let first = true;
  for (let i = 0; i < list.length; ) {
    const gap = list[i++] as unknown;
    const mask = list[i++] as unknown;
    if (!isCount(gap) || (!first && gap === 0) || !isCount(mask) || mask === 0 || mask >= 1 << FIELD_COUNT) throw new Error("a posting list is malformed");
    first = false;
    doc += gap;
    if (doc >= documentCount) throw new Error("a posting names a document that does not exist");
    docs.push(doc);
    for (let f = 0; f < FIELD_COUNT; f++) {
      if ((mask & (1 << f)) === 0) {
        counts.push(0);
        continue;
      }
      const count = list[i++] as unknown;
      if (!isCount(count) || count === 0 || count > MAX_TERM_COUNT) throw new Error("a posting count is malformed");
      counts.push(count);
    }
  }
}

function decode(text: string): IndexCore {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error("not JSON");
  }
  if (typeof parsed !== "object" || parsed === null) throw new Error("not an object");
  const stored = parsed as Partial<Record<keyof StoredIndex, unknown>>;
  if (stored.format !== SEARCH_INDEX_FORMAT) throw new Error(`format is ${JSON.stringify(stored.format)}, expected ${JSON.stringify(SEARCH_INDEX_FORMAT)}`);
  if (stored.version !== SEARCH_INDEX_VERSION) throw new Error(`version ${JSON.stringify(stored.version)} is not the supported version ${SEARCH_INDEX_VERSION}; rebuild the index`);
  const { ids, lengths, servers, docServers, terms, postings } = stored;
  if (!isStringList(ids)) throw new Error("ids must be a list of strings");
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) throw new Error("ids must be unique and ascending");
  if (!Array.isArray(lengths) || lengths.length !== ids.length * FIELD_COUNT || !lengths.every(isCount)) throw new Error("lengths do not match the ids");
  if (!isStringList(servers)) throw new Error("servers must be a list of strings");
  if (!Array.isArray(docServers) || docServers.length !== ids.length || !docServers.every((s) => isCount(s) && s < servers.length)) throw new Error("docServers do not match the ids and servers");
  if (!isStringList(terms) || new Set(terms).size !== terms.length) throw new Error("terms must be a list of distinct strings");
  if (!Array.isArray(postings) || postings.length !== terms.length) throw new Error("postings do not match the terms");
  if (typeof stored.config !== "object" || stored.config === null) throw new Error("config is missing");
  const offsets = new Uint32Array(terms.length + 1);
  const docs: number[] = [];
  const counts: number[] = [];
  postings.forEach((list, t) => {
    decodePosting(list, ids.length, docs, counts);
    offsets[t + 1] = docs.length;
  });
  return {
    config: resolveSearchConfig(stored.config as SearchConfigOverride),
    ids,
    lengths: Uint32Array.from(lengths as number[]),
    servers,
    docServers: Uint32Array.from(docServers as number[]),
    terms,
    offsets,
    docs: Uint32Array.from(docs),
    counts: Uint8Array.from(counts),
  };
}

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
