/**
 * BM25F over the fields of `fields.ts`. A term's frequency in a document is the sum over
 * fields of weight × count, each count normalized by its field's length against that
 * field's average (per-field b); the sum is saturated once with k1 and multiplied by the
 * term's IDF (ln(1 + (N − df + ½)/(df + ½)), never negative). Because the configuration
 * is fixed when the index is built, every (term, document) score is computed then, and a
 * query only adds up precomputed impacts. Optional coverage boosts multiply a score by
 * how much of a tool's name, and of its server's name, the query contains.
 *
 * Documents are numbered in id order, so results do not depend on input order and ties
 * break by id. Postings are stored compressed-row style: term t's entries are
 * `offsets[t]` to `offsets[t + 1]` of one document array and one count array. The stored
 * core (`IndexCore`) is all a serializer needs; everything else is derived from it by
 * `finalizeIndex`, the same way after a build or a load.
 */
import { DEFAULT_SEARCH_LIMIT } from "./config.js";
import { SearchError } from "./errors.js";
import { FIELD_STYLES, fieldTexts } from "./fields.js";
import { queryParts } from "./query.js";
import { topK } from "./top-k.js";
import { createWordTable } from "./word-table.js";
import { createTokenizer, type Tokenizer } from "./tokenize.js";
import { FIELD_NAMES, type SearchConfig, type SearchDocument, type SearchHit, type SearchOptions } from "./types.js";

export const FIELD_COUNT = FIELD_NAMES.length;
const NAME_WORDS = FIELD_NAMES.indexOf("nameWords");
const SERVER = FIELD_NAMES.indexOf("server");
/** Term counts are stored in 8 bits; a field repeating a term more often counts this many times (saturation makes more moot). */
export const MAX_TERM_COUNT = 0xff;

/** What an index stores; everything else is derived. */
export interface IndexCore {
  config: SearchConfig;
  /** Document ids, ascending; a document's number is its position here. */
  ids: readonly string[];
  /** `lengths[doc * FIELD_COUNT + field]`: terms in that field of that document. */
  lengths: Uint32Array;
  /** Server names, ascending; `docServers[doc]` is a position here. */
  servers: readonly string[];
  docServers: Uint32Array;
  /** Terms in order of first appearance; a term's number is its position here. */
  terms: readonly string[];
  /** Term t's postings are entries `offsets[t]` to `offsets[t + 1]` (length terms + 1). */
  offsets: Uint32Array;
  /** Per entry: the document (ascending within a term). */
  docs: Uint32Array;
  /** Per entry and field: `counts[entry * FIELD_COUNT + field]`. */
  counts: Uint8Array;
}

declare const opaque: unique symbol;
/** A built or loaded index; its contents are private to this module. */
export interface SearchIndex {
  readonly [opaque]: true;
}

const INDEX_KIND = "mcp-edge.search-index";


interface IndexData extends IndexCore {
  readonly kind: typeof INDEX_KIND;
  readonly tokenizer: Tokenizer;
  readonly termNumbers: ReadonlyMap<string, number>;
  /** Per entry: the term's score contribution to that document. */
  readonly impacts: Float64Array;
  /** Distinct terms in each document's name words and server name (for coverage boosts). */
  readonly nameWordCounts: Uint16Array;
  readonly serverWordCounts: Uint16Array;
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A typed array at least `size` long, keeping the contents of `array`. */
function ensure<T extends Uint32Array | Uint8Array | Int32Array>(array: T, size: number, make: (n: number) => T): T {
  if (size <= array.length) return array;
  const grown = make(Math.max(size, array.length * 2));
  grown.set(array);
  return grown;
}

/** Tokenizes every document and collects postings. */
export function buildIndexCore(docs: readonly SearchDocument[], config: SearchConfig): IndexCore {
  const sorted = [...docs].sort((a, b) => compareIds(a.id, b.id));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.id === sorted[i - 1]!.id) throw new SearchError("duplicateId", `Two search documents have the id ${JSON.stringify(sorted[i]!.id)}`);
  }
  const tokenizer = createTokenizer(config.tokenizer);

  // Term dictionary, and each distinct word's term numbers (parts, then compound or −1).
  const termNumbers = new Map<string, number>();
  const terms: string[] = [];
  const termNumber = (term: string): number => {
    let number = termNumbers.get(term);
    if (number === undefined) {
      number = terms.length;
      termNumbers.set(term, number);
      terms.push(term);
      if (number >= slotOf.length) {
        slotOf = ensure(slotOf, number + 1, (n) => new Int32Array(n));
        slotDoc = ensure(slotDoc, number + 1, (n) => new Int32Array(n));
      }
    }
    return number;
  };
  const wordCodes = createWordTable(tokenizer, config.tokenizer.splitIdentifiers, (word) => {
    const { parts, compound } = tokenizer.word(word);
    return { parts: parts.map(termNumber), compound: compound === undefined ? -1 : termNumber(compound) };
  });

  // Entries (term, document, counts), appended in document order.
  let entryTerms = new Uint32Array(1 << 16);
  let entryDocs = new Uint32Array(1 << 16);
  let entryCounts = new Uint8Array((1 << 16) * FIELD_COUNT);
  let entries = 0;

  // The current document's distinct terms: a slot per term (valid while slotDoc[term] is
  // the document's number + 1), and counts per slot and field.
  let slotOf = new Int32Array(1 << 12);
  let slotDoc = new Int32Array(1 << 12);
  const docTerms: number[] = [];
  let scratch = new Uint8Array(256 * FIELD_COUNT);
  let stamp = 0;
  let field = 0;
  let fieldLength = 0;
  let compounds = false;

  const add = (term: number): void => {
    let slot: number;
    if (slotDoc[term] === stamp) slot = slotOf[term]!;
    else {
      slot = docTerms.length;
      slotDoc[term] = stamp;
      slotOf[term] = slot;
      docTerms.push(term);
      if ((slot + 1) * FIELD_COUNT > scratch.length) scratch = ensure(scratch, (slot + 1) * FIELD_COUNT, (n) => new Uint8Array(n));
      for (let f = 0; f < FIELD_COUNT; f++) scratch[slot * FIELD_COUNT + f] = 0;
    }
    const at = slot * FIELD_COUNT + field;
    if (scratch[at]! < MAX_TERM_COUNT) scratch[at]!++;
    fieldLength++;
  };
  // Each distinct text's terms, per tokenization (with and without compounds): a server's
  // description and name recur on every one of its tools, and parameter descriptions recur.
  const textCodes = [new Map<string, Uint32Array>(), new Map<string, Uint32Array>()] as const;
  const collected: number[] = [];
  const collect = (code: { parts: number[]; compound: number }): void => {
    for (const part of code.parts) collected.push(part);
    if (compounds && code.compound >= 0) collected.push(code.compound);
  };
  const codesOf = (text: string): Uint32Array => {
    const cache = textCodes[compounds ? 1 : 0];
    let codes = cache.get(text);
    if (codes === undefined) {
      collected.length = 0;
      wordCodes.forEach(text, collect);
      codes = Uint32Array.from(collected);
      cache.set(text, codes);
    }
    return codes;
  };

  const lengths = new Uint32Array(sorted.length * FIELD_COUNT);
  sorted.forEach((doc, docNumber) => {
    stamp = docNumber + 1;
    const texts = fieldTexts(doc, config);
    for (field = 0; field < FIELD_COUNT; field++) {
      const name = FIELD_NAMES[field]!;
      const style = FIELD_STYLES[name];
      compounds = style === "text" && config.tokenizer.keepCompounds;
      fieldLength = 0;
      for (const text of texts[name]) {
        if (style === "identifier") for (const term of tokenizer.identifier(text)) add(termNumber(term));
        else for (const code of codesOf(text)) add(code);
      }
      lengths[docNumber * FIELD_COUNT + field] = fieldLength;
    }
    const needed = entries + docTerms.length;
    entryTerms = ensure(entryTerms, needed, (n) => new Uint32Array(n));
    entryDocs = ensure(entryDocs, needed, (n) => new Uint32Array(n));
    entryCounts = ensure(entryCounts, needed * FIELD_COUNT, (n) => new Uint8Array(n));
    for (let slot = 0; slot < docTerms.length; slot++) {
      const term = docTerms[slot]!;
      entryTerms[entries] = term;
      entryDocs[entries] = docNumber;
      for (let f = 0; f < FIELD_COUNT; f++) entryCounts[entries * FIELD_COUNT + f] = scratch[slot * FIELD_COUNT + f]!;
      entries++;
    }
    docTerms.length = 0;
  });

  // Group the entries by term (a counting sort keeps document order within a term).
  const offsets = new Uint32Array(terms.length + 1);
  for (let e = 0; e < entries; e++) offsets[entryTerms[e]! + 1]!++;
  for (let t = 0; t < terms.length; t++) offsets[t + 1]! += offsets[t]!;
  const next = offsets.slice(0, terms.length);
  const postingDocs = new Uint32Array(entries);
  const postingCounts = new Uint8Array(entries * FIELD_COUNT);
  for (let e = 0; e < entries; e++) {
    const at = next[entryTerms[e]!]!++;
    postingDocs[at] = entryDocs[e]!;
    for (let f = 0; f < FIELD_COUNT; f++) postingCounts[at * FIELD_COUNT + f] = entryCounts[e * FIELD_COUNT + f]!;
  }

  const servers = [...new Set(sorted.map((doc) => doc.server))].sort(compareIds);
  const serverNumbers = new Map(servers.map((server, i) => [server, i]));
  const docServers = Uint32Array.from(sorted, (doc) => serverNumbers.get(doc.server)!);
  return { config, ids: sorted.map((doc) => doc.id), lengths, servers, docServers, terms, offsets, docs: postingDocs, counts: postingCounts };
}

/** Derives the scoring tables from a stored core. */
export function finalizeIndex(core: IndexCore): SearchIndex {
  const { config, ids, lengths, terms, offsets, docs, counts } = core;
  const n = ids.length;
  const weights = FIELD_NAMES.map((name) => config.fields[name].weight);
  const bs = FIELD_NAMES.map((name) => config.fields[name].b);

  const averages = new Array<number>(FIELD_COUNT).fill(0);
  for (let d = 0; d < n; d++) for (let f = 0; f < FIELD_COUNT; f++) averages[f]! += lengths[d * FIELD_COUNT + f]!;
  for (let f = 0; f < FIELD_COUNT; f++) averages[f] = n > 0 ? averages[f]! / n : 0;

  // weight / (1 − b + b·len/avg), per document and field.
  const scale = new Float64Array(n * FIELD_COUNT);
  for (let d = 0; d < n; d++) {
    for (let f = 0; f < FIELD_COUNT; f++) {
      if (weights[f]! <= 0 || averages[f]! <= 0) continue;
      scale[d * FIELD_COUNT + f] = weights[f]! / (1 - bs[f]! + (bs[f]! * lengths[d * FIELD_COUNT + f]!) / averages[f]!);
    }
  }

  const { k1 } = config;
  const impacts = new Float64Array(docs.length);
  const nameWordCounts = new Uint16Array(n);
  const serverWordCounts = new Uint16Array(n);
  for (let t = 0; t < terms.length; t++) {
    const start = offsets[t]!;
    const end = offsets[t + 1]!;
    const df = end - start;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5)) ** config.idfExponent;
    for (let e = start; e < end; e++) {
      const d = docs[e]!;
      let tf = 0;
      for (let f = 0; f < FIELD_COUNT; f++) tf += counts[e * FIELD_COUNT + f]! * scale[d * FIELD_COUNT + f]!;
      impacts[e] = (idf * tf * (k1 + 1)) / (k1 + tf);
      if (counts[e * FIELD_COUNT + NAME_WORDS]! > 0) nameWordCounts[d]!++;
      if (counts[e * FIELD_COUNT + SERVER]! > 0) serverWordCounts[d]!++;
    }
  }

  const termNumbers = new Map<string, number>();
  terms.forEach((term, number) => termNumbers.set(term, number));
  const data: IndexData = {
    kind: INDEX_KIND,
    ...core,
    tokenizer: createTokenizer(config.tokenizer),
    termNumbers,
    impacts,
    nameWordCounts,
    serverWordCounts,
  };
  return data as unknown as SearchIndex;
}

/** The stored core of an index (for the serializer). */
export function indexCore(index: SearchIndex): IndexCore {
  const { config, ids, lengths, servers, docServers, terms, offsets, docs, counts } = dataOf(index);
  return { config, ids, lengths, servers, docServers, terms, offsets, docs, counts };
}

function dataOf(index: SearchIndex): IndexData {
  const data = index as unknown as Partial<IndexData> | undefined;
  if (data?.kind !== INDEX_KIND) throw new SearchError("invalidIndex", "Not a search index (build one with buildSearchIndex or deserializeSearchIndex)");
  return data as IndexData;
}

interface QueryScores {
  scores: Float64Array;
  /** Documents with a nonzero score, in the order first met. */
  touched: number[];
}

/** Every document's score for one query text (zero for most). */
function scoreQuery(data: IndexData, query: string): QueryScores | undefined {
  // Query terms known to the index, with how often each occurs (once if deduplicated).
  const queryTerms = new Map<number, number>();
  const parts = data.config.argumentWeight < 1 ? queryParts(query) : [{ text: query, argument: false }];
  for (const part of parts) {
    const weight = part.argument ? data.config.argumentWeight : 1;
    if (weight <= 0) continue;
    for (const term of data.tokenizer.terms(part.text)) {
      if (data.config.dropNumbers && /^\d+$/.test(term)) continue;
      const number = data.termNumbers.get(term);
      if (number === undefined) continue;
      const previous = queryTerms.get(number) ?? 0;
      queryTerms.set(number, data.config.dedupeQueryTerms ? Math.max(previous, weight) : previous + weight);
    }
  }
  if (queryTerms.size === 0) return undefined;

  const n = data.ids.length;
  const { docs, counts, impacts, offsets } = data;
  const scores = new Float64Array(n);
  const termHits = new Uint16Array(n);
  const nameHits = new Uint16Array(n);
  const serverHits = new Uint16Array(n);
  const touched: number[] = [];
  for (const [term, times] of queryTerms) {
    const end = offsets[term + 1]!;
    for (let e = offsets[term]!; e < end; e++) {
      const d = docs[e]!;
      if (termHits[d] === 0) touched.push(d);
      termHits[d]!++;
      scores[d]! += times * impacts[e]!;
      if (counts[e * FIELD_COUNT + NAME_WORDS]! > 0) nameHits[d]!++;
      if (counts[e * FIELD_COUNT + SERVER]! > 0) serverHits[d]!++;
    }
  }

  const { nameCoverageBoost, serverCoverageBoost } = data.config;
  if (nameCoverageBoost > 0 || serverCoverageBoost > 0) {
    for (const d of touched) {
      const name = data.nameWordCounts[d]! > 0 ? nameHits[d]! / data.nameWordCounts[d]! : 0;
      const server = data.serverWordCounts[d]! > 0 ? serverHits[d]! / data.serverWordCounts[d]! : 0;
      scores[d]! *= 1 + nameCoverageBoost * name + serverCoverageBoost * server;
    }
  }
  if (data.config.coordExponent > 0) {
    for (const d of touched) scores[d]! *= (termHits[d]! / queryTerms.size) ** data.config.coordExponent;
  }
  if (data.config.serverPooling > 0) poolByServer(data, scores, touched);
  return { scores, touched };
}

/** Clause boundaries: sentence ends, semicolons, and words that start a next step. */
const CLAUSE_BREAK = /[.;!?\n]+(?:\s|$)|,?\s+(?:and\s+then|then|after\s+that|afterwards|finally|next|also|as\s+well\s+as)\s+/giu;

export function splitClauses(query: string): string[] {
  return query.split(CLAUSE_BREAK).map((c) => c.trim()).filter((c) => c.length > 0);
}

/** The best documents for `query`, best first; ties by id. */
export function search(index: SearchIndex, query: string, options: SearchOptions = {}): SearchHit[] {
  const data = dataOf(index);
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!(limit > 0)) return [];
  const whole = scoreQuery(data, query);
  if (whole === undefined) return [];
  const { scores, touched } = whole;

  const weight = data.config.clauseWeight;
  const clauses = weight > 0 ? splitClauses(query) : [];
  if (clauses.length > 1) {
    // Each clause's best score counts 1; a document gains `weight` × its best clause share.
    const top = maxOf(scores, touched);
    const fused = new Float64Array(scores.length);
    for (const d of touched) fused[d] = scores[d]! / top;
    for (const clause of clauses) {
      const part = scoreQuery(data, clause);
      if (part === undefined) continue;
      const best = maxOf(part.scores, part.touched);
      for (const d of part.touched) {
        const share = part.scores[d]! / best;
        if (data.config.clauseMode === "max") {
          if (share * weight > fused[d]! - scores[d]! / top) fused[d] = scores[d]! / top + share * weight;
        } else fused[d]! += weight * share;
      }
    }
    for (const d of touched) scores[d] = fused[d]!;
  }

  const { filter } = options;
  const candidates = filter === undefined ? touched : touched.filter((d) => filter(data.ids[d]!));
  return topK(candidates, scores, Math.floor(limit)).map((d) => ({ id: data.ids[d]!, score: scores[d]! }));
}

function maxOf(scores: Float64Array, docs: readonly number[]): number {
  let max = 0;
  for (const d of docs) if (scores[d]! > max) max = scores[d]!;
  return max;
}

/**
 * Adds to every touched tool `serverPooling` × the best score among its server's tools,
 * so the tools of the server that fits the query best rise together.
 */
function poolByServer(data: IndexData, scores: Float64Array, touched: number[]): void {
  const best = new Float64Array(data.servers.length);
  for (const d of touched) {
    const s = data.docServers[d]!;
    if (scores[d]! > best[s]!) best[s] = scores[d]!;
  }
  const weight = data.config.serverPooling;
  for (const d of touched) scores[d]! += weight * best[data.docServers[d]!]!;
}
