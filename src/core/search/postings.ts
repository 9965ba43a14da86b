/**
 * The inverted index of a catalog: every document's fields tokenized and counted, stored
 * compressed-row style (term t's entries are `offsets[t]` to `offsets[t + 1]` of one
 * document array and one count array, documents ascending). Documents are numbered in id
 * order, so the index does not depend on input order. This `IndexCore` is everything
 * an index stores; scoring tables are derived from it (`bm25f.ts`).
 *
 * Building is the hot path of a catalog change, so it avoids per-term allocations: each
 * distinct text is tokenized once (a server's name and description recur on every tool
 * of the server, parameter descriptions recur across tools), each distinct word is
 * turned into term numbers once, and counts go through reused typed arrays.
 */
import { SearchError } from "./errors.js";
import { FIELD_STYLES, fieldTexts, type FieldStyle } from "./fields.js";
import { createTokenizer } from "./tokenize.js";
import { FIELD_NAMES, type SearchConfig, type SearchDocument } from "./types.js";

export const FIELD_COUNT = FIELD_NAMES.length;
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

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A typed array at least `size` long (doubling), keeping the contents of `array`. */
function ensure<T extends Uint32Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer>>(array: T, size: number, make: (n: number) => T): T {
  if (size <= array.length) return array;
  const grown = make(Math.max(size, array.length * 2));
  grown.set(array);
  return grown;
}

const newInt32 = (n: number): Int32Array<ArrayBuffer> => new Int32Array(n);
const newUint32 = (n: number): Uint32Array<ArrayBuffer> => new Uint32Array(n);
const newUint8 = (n: number): Uint8Array<ArrayBuffer> => new Uint8Array(n);

interface WordCode {
  parts: number[];
  /** The compound's term number, or −1. */
  compound: number;
}

/** Tokenizes every document and collects postings; throws `SearchError("duplicateId")` on a repeated id. */
export function buildIndexCore(docs: readonly SearchDocument[], config: SearchConfig): IndexCore {
  const sorted = [...docs].sort((a, b) => compareIds(a.id, b.id));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.id === sorted[i - 1]!.id) throw new SearchError("duplicateId", `Two search documents have the id ${JSON.stringify(sorted[i]!.id)}`);
  }
  const tokenizer = createTokenizer(config.tokenizer);

  // The term dictionary.
  const termNumbers = new Map<string, number>();
  const terms: string[] = [];
  const termNumber = (term: string): number => {
    let number = termNumbers.get(term);
    if (number === undefined) {
      number = terms.length;
      termNumbers.set(term, number);
      terms.push(term);
    }
    return number;
  };

  // Each distinct word's term numbers; each distinct text's, per tokenization style.
  const wordCodes = new Map<string, WordCode>();
  const textCodes = { identifier: new Map<string, Uint32Array>(), words: new Map<string, Uint32Array>(), text: new Map<string, Uint32Array>() };
  const collected: number[] = [];
  let compounds = false;
  const collect = (word: string): void => {
    let code = wordCodes.get(word);
    if (code === undefined) {
      const { parts, compound } = tokenizer.word(word);
      code = { parts: parts.map(termNumber), compound: compound === undefined ? -1 : termNumber(compound) };
      wordCodes.set(word, code);
    }
    for (const part of code.parts) collected.push(part);
    if (compounds && code.compound >= 0) collected.push(code.compound);
  };
  const codesOf = (text: string, style: FieldStyle): Uint32Array => {
    const cache = textCodes[style];
    let codes = cache.get(text);
    if (codes === undefined) {
      if (style === "identifier") codes = Uint32Array.from(tokenizer.identifier(text), termNumber);
      else {
        compounds = style === "text" && config.tokenizer.keepCompounds;
        collected.length = 0;
        tokenizer.forEachWord(text, collect);
        codes = Uint32Array.from(collected);
      }
      cache.set(text, codes);
    }
    return codes;
  };

  // The current document's distinct terms: a slot per term (valid while slotDoc[term] is
  // the document's number + 1), and counts per slot and field.
  let slotOf = new Int32Array(1 << 12);
  let slotDoc = new Int32Array(1 << 12);
  let docTerms = new Uint32Array(256);
  let scratch = new Uint8Array(256 * FIELD_COUNT);

  // Entries (term, document, counts), appended in document order.
  let entryTerms = new Uint32Array(1 << 16);
  let entryDocs = new Uint32Array(1 << 16);
  let entryCounts = new Uint8Array((1 << 16) * FIELD_COUNT);
  let entries = 0;
  const lengths = new Uint32Array(sorted.length * FIELD_COUNT);

  for (let doc = 0; doc < sorted.length; doc++) {
    const stamp = doc + 1;
    const texts = fieldTexts(sorted[doc]!, config);
    let distinct = 0;
    for (let field = 0; field < FIELD_COUNT; field++) {
      const name = FIELD_NAMES[field]!;
      let length = 0;
      for (const text of texts[name]) {
        const codes = codesOf(text, FIELD_STYLES[name]);
        if (slotOf.length < terms.length) {
          slotOf = ensure(slotOf, terms.length, newInt32);
          slotDoc = ensure(slotDoc, terms.length, newInt32);
        }
        for (let i = 0; i < codes.length; i++) {
          const term = codes[i]!;
          let slot: number;
          if (slotDoc[term] === stamp) slot = slotOf[term]!;
          else {
            slot = distinct++;
            slotDoc[term] = stamp;
            slotOf[term] = slot;
            if (distinct > docTerms.length) {
              docTerms = ensure(docTerms, distinct, newUint32);
              scratch = ensure(scratch, distinct * FIELD_COUNT, newUint8);
            }
            docTerms[slot] = term;
            for (let f = 0; f < FIELD_COUNT; f++) scratch[slot * FIELD_COUNT + f] = 0;
          }
          const at = slot * FIELD_COUNT + field;
          if (scratch[at]! < MAX_TERM_COUNT) scratch[at]!++;
        }
        length += codes.length;
      }
      lengths[doc * FIELD_COUNT + field] = length;
    }
    entryTerms = ensure(entryTerms, entries + distinct, newUint32);
    entryDocs = ensure(entryDocs, entries + distinct, newUint32);
    entryCounts = ensure(entryCounts, (entries + distinct) * FIELD_COUNT, newUint8);
    for (let slot = 0; slot < distinct; slot++) {
      entryTerms[entries] = docTerms[slot]!;
      entryDocs[entries] = doc;
      for (let f = 0; f < FIELD_COUNT; f++) entryCounts[entries * FIELD_COUNT + f] = scratch[slot * FIELD_COUNT + f]!;
      entries++;
    }
  }

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

  // Terms met only as an unused compound have no postings; leave them out.
  const kept: string[] = [];
  const keptOffsets: number[] = [0];
  for (let t = 0; t < terms.length; t++) {
    if (offsets[t + 1] === offsets[t]) continue;
    kept.push(terms[t]!);
    keptOffsets.push(offsets[t + 1]!);
  }

  const servers = [...new Set(sorted.map((doc) => doc.server))].sort(compareIds);
  const serverNumbers = new Map(servers.map((server, i) => [server, i]));
  const docServers = Uint32Array.from(sorted, (doc) => serverNumbers.get(doc.server)!);
  return {
    config,
    ids: sorted.map((doc) => doc.id),
    lengths,
    servers,
    docServers,
    terms: kept,
    offsets: Uint32Array.from(keptOffsets),
    docs: postingDocs,
    counts: postingCounts,
  };
}
