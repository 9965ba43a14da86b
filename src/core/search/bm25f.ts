/**
 * BM25F scoring over the postings of `postings.ts`. A term's frequency in a document is
 * the sum over fields of weight × count, each count normalized by its field's length
 * against that field's average (per-field b); the sum is saturated once with k1 and
 * multiplied by the term's IDF, ln(1 + (N − df + ½)/(df + ½)) raised to `idfExponent`
 * (below 1 flattens IDF, which suits long, wordy tasks). The configuration is fixed when
 * an index is built, so every (term, document) score is computed then and a query only
 * adds up precomputed impacts.
 *
 * Two tool-catalog signals then adjust a query's scores: a tool whose name words the
 * query contains gains up to `nameCoverageBoost` (×(1 + boost × share of its name words
 * present)), and every tool gains `serverPooling` × the best score among its server's
 * tools, so the tools of the server that fits the task rise together.
 */
import { SearchError } from "./errors.js";
import { FIELD_COUNT, type IndexCore } from "./postings.js";
import { createTokenizer, type Tokenizer } from "./tokenize.js";
import { FIELD_NAMES } from "./types.js";

const NAME_WORDS = FIELD_NAMES.indexOf("nameWords");

declare const opaque: unique symbol;
/** A built or loaded index; its contents are private to the search modules. */
export interface SearchIndex {
  readonly [opaque]: true;
}

const INDEX_KIND = "mcp-edge.search-index";

export interface IndexData extends IndexCore {
  readonly kind: typeof INDEX_KIND;
  readonly tokenizer: Tokenizer;
  readonly termNumbers: ReadonlyMap<string, number>;
  /** Per posting entry: the term's score contribution to that document. */
  readonly impacts: Float64Array;
  /** Distinct terms among each document's name words. */
  readonly nameWordCounts: Uint16Array;
}

/** Derives the scoring tables from a stored core (after a build or a load alike). */
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

  const { k1, idfExponent } = config;
  const impacts = new Float64Array(docs.length);
  const nameWordCounts = new Uint16Array(n);
  for (let t = 0; t < terms.length; t++) {
    const start = offsets[t]!;
    const end = offsets[t + 1]!;
    const df = end - start;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5)) ** idfExponent;
    for (let e = start; e < end; e++) {
      const d = docs[e]!;
      let tf = 0;
      for (let f = 0; f < FIELD_COUNT; f++) tf += counts[e * FIELD_COUNT + f]! * scale[d * FIELD_COUNT + f]!;
      impacts[e] = (idf * tf * (k1 + 1)) / (k1 + tf);
      if (counts[e * FIELD_COUNT + NAME_WORDS]! > 0) nameWordCounts[d]!++;
    }
  }

  const termNumbers = new Map<string, number>();
  terms.forEach((term, number) => termNumbers.set(term, number));
  const data: IndexData = { kind: INDEX_KIND, ...core, tokenizer: createTokenizer(config.tokenizer), termNumbers, impacts, nameWordCounts };
  return data as unknown as SearchIndex;
}

/** The index's data; throws `SearchError("invalidIndex")` for anything else. */
export function indexData(index: SearchIndex): IndexData {
  const data = index as unknown as Partial<IndexData> | undefined;
  if (data?.kind !== INDEX_KIND) throw new SearchError("invalidIndex", "Not a search index (build one with buildSearchIndex or deserializeSearchIndex)");
  return data as IndexData;
}

/** The stored core of an index (for the serializer). */
export function indexCore(index: SearchIndex): IndexCore {
  const { config, ids, lengths, servers, docServers, terms, offsets, docs, counts } = indexData(index);
  return { config, ids, lengths, servers, docServers, terms, offsets, docs, counts };
}

export interface QueryScores {
  /** Per document; zero for documents no query term occurs in. */
  scores: Float64Array;
  /** Documents with a nonzero score, in the order first met. */
  touched: number[];
}

/** Every document's score for weighted query terms (term number → weight). */
export function scoreTerms(data: IndexData, queryTerms: ReadonlyMap<number, number>): QueryScores {
  const n = data.ids.length;
  const { docs, counts, impacts, offsets } = data;
  const scores = new Float64Array(n);
  const nameHits = new Uint16Array(n);
  const seen = new Uint8Array(n);
  const touched: number[] = [];
  for (const [term, weight] of queryTerms) {
    const end = offsets[term + 1]!;
    for (let e = offsets[term]!; e < end; e++) {
      const d = docs[e]!;
      if (seen[d] === 0) {
        seen[d] = 1;
        touched.push(d);
      }
      scores[d]! += weight * impacts[e]!;
      if (counts[e * FIELD_COUNT + NAME_WORDS]! > 0) nameHits[d]!++;
    }
  }

  const { nameCoverageBoost, serverPooling } = data.config;
  if (nameCoverageBoost > 0) {
    for (const d of touched) {
      if (data.nameWordCounts[d]! > 0) scores[d]! *= 1 + (nameCoverageBoost * nameHits[d]!) / data.nameWordCounts[d]!;
    }
  }
  if (serverPooling > 0) {
    const best = new Float64Array(data.servers.length);
    for (const d of touched) {
      const s = data.docServers[d]!;
      if (scores[d]! > best[s]!) best[s] = scores[d]!;
    }
    for (const d of touched) scores[d]! += serverPooling * best[data.docServers[d]!]!;
  }
  return { scores, touched };
}
