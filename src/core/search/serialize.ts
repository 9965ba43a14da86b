/**
 * A search index as compact text for a KV cache: JSON holding the configuration, the
 * ids, server names and terms, and one base64 block of varints with the numbers (per
 * document its server and field lengths; per term its postings: document gap, a bit mask
 * of the fields the term occurs in, the count in each). The scoring tables are
 * recomputed on load by the same code as after a build, so a loaded index ranks exactly
 * like the built one. Text in another format or version, or malformed in any way, is
 * refused with `SearchError("invalidIndex")`; `parseSearchIndex` returns that as a value.
 */
import { byteReader, byteWriter, fromBase64, toBase64 } from "./binary.js";
import { finalizeIndex, indexCore, type SearchIndex } from "./bm25f.js";
import { resolveSearchConfig, type SearchConfigOverride } from "./config.js";
import { SearchError } from "./errors.js";
import { FIELD_COUNT, MAX_TERM_COUNT, type IndexCore } from "./postings.js";

export const SEARCH_INDEX_FORMAT = "mcp-edge/search-index";
/** Bump whenever the stored shape, the tokenizer, the scoring or the default configuration changes. */
export const SEARCH_INDEX_VERSION = 2;

interface StoredIndex {
  format: typeof SEARCH_INDEX_FORMAT;
  version: typeof SEARCH_INDEX_VERSION;
  config: unknown;
  ids: string[];
  servers: string[];
  terms: string[];
  /** base64 varints: per document server + lengths, then per term count + postings. */
  data: string;
}

export type ParseResult = { success: true; value: SearchIndex } | { success: false; error: SearchError };

export function serializeSearchIndex(index: SearchIndex): string {
  const { config, ids, lengths, servers, docServers, terms, offsets, docs, counts } = indexCore(index);
  const out = byteWriter();
  for (let d = 0; d < ids.length; d++) {
    out.uint(docServers[d]!);
    for (let f = 0; f < FIELD_COUNT; f++) out.uint(lengths[d * FIELD_COUNT + f]!);
  }
  for (let t = 0; t < terms.length; t++) {
    out.uint(offsets[t + 1]! - offsets[t]!);
    let previous = 0;
    for (let e = offsets[t]!; e < offsets[t + 1]!; e++) {
      out.uint(docs[e]! - previous);
      previous = docs[e]!;
      let mask = 0;
      for (let f = 0; f < FIELD_COUNT; f++) if (counts[e * FIELD_COUNT + f]! > 0) mask |= 1 << f;
      out.uint(mask);
      for (let f = 0; f < FIELD_COUNT; f++) if (counts[e * FIELD_COUNT + f]! > 0) out.uint(counts[e * FIELD_COUNT + f]!);
    }
  }
  const stored: StoredIndex = {
    format: SEARCH_INDEX_FORMAT,
    version: SEARCH_INDEX_VERSION,
    config,
    ids: [...ids],
    servers: [...servers],
    terms: [...terms],
    data: toBase64(out.bytes()),
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
  const { ids, servers, terms, data } = stored;
  if (!isStringList(ids)) throw new Error("ids must be a list of strings");
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) throw new Error("ids must be unique and ascending");
  if (!isStringList(servers)) throw new Error("servers must be a list of strings");
  if (!isStringList(terms) || new Set(terms).size !== terms.length) throw new Error("terms must be a list of distinct strings");
  if (typeof data !== "string") throw new Error("data must be a string");
  if (typeof stored.config !== "object" || stored.config === null) throw new Error("config is missing");
  const config = resolveSearchConfig(stored.config as SearchConfigOverride);

  const n = ids.length;
  const read = byteReader(fromBase64(data));
  const docServers = new Uint32Array(n);
  const lengths = new Uint32Array(n * FIELD_COUNT);
  for (let d = 0; d < n; d++) {
    docServers[d] = read.uint();
    if (docServers[d]! >= servers.length) throw new Error("a document names a server that does not exist");
    for (let f = 0; f < FIELD_COUNT; f++) lengths[d * FIELD_COUNT + f] = read.uint();
  }

  const offsets = new Uint32Array(terms.length + 1);
  let docs = new Uint32Array(1 << 16);
  let counts = new Uint8Array((1 << 16) * FIELD_COUNT);
  let entries = 0;
  for (let t = 0; t < terms.length; t++) {
    const df = read.uint();
    if (df === 0 || df > n) throw new Error("a posting list has an impossible length");
    if (entries + df > docs.length) {
      const size = Math.max(entries + df, docs.length * 2);
      const moreDocs = new Uint32Array(size);
      moreDocs.set(docs);
      docs = moreDocs;
      const moreCounts = new Uint8Array(size * FIELD_COUNT);
      moreCounts.set(counts);
      counts = moreCounts;
    }
    let doc = 0;
    for (let i = 0; i < df; i++) {
      const gap = read.uint();
      if (i > 0 && gap === 0) throw new Error("a posting list is not ascending");
      doc += gap;
      if (doc >= n) throw new Error("a posting names a document that does not exist");
      const mask = read.uint();
      if (mask === 0 || mask >= 1 << FIELD_COUNT) throw new Error("a posting has no fields");
      docs[entries] = doc;
      for (let f = 0; f < FIELD_COUNT; f++) {
        if ((mask & (1 << f)) === 0) continue;
        const count = read.uint();
        if (count === 0 || count > MAX_TERM_COUNT) throw new Error("a posting count is out of range");
        counts[entries * FIELD_COUNT + f] = count;
      }
      entries++;
    }
    offsets[t + 1] = entries;
  }
  if (!read.done()) throw new Error("the data has bytes left over");
  return { config, ids, lengths, servers, docServers, terms, offsets, docs: docs.slice(0, entries), counts: counts.slice(0, entries * FIELD_COUNT) };
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
