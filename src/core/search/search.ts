/**
 * A query, end to end: the task's text becomes weighted terms (words inside quotes, URLs
 * and e-mail addresses count `argumentWeight`; a repeated word counts once; long words
 * also match their indexed prefixes at `prefixWeight`), BM25F scores every tool
 * (`bm25f.ts`), and a task of several steps is also scored clause by clause ("…, then …;
 * finally …"): a tool gains `clauseWeight` × its best share of a clause's top score,
 * scaled to the whole task's top score, so each step's best tools reach the top even
 * when another step dominates the words. Then the filter, and the best `limit` by score,
 * ties by id.
 */
import { indexData, scoreTerms, type IndexData, type QueryScores, type SearchIndex } from "./bm25f.js";
import { DEFAULT_SEARCH_LIMIT, MAX_PREFIX_CHARS, MAX_SEARCH_QUERY_CHARS } from "./config.js";
import { queryParts, splitClauses } from "./query.js";
import { topK } from "./top-k.js";
import type { SearchHit, SearchOptions } from "./types.js";

/**
 * Term number → weight for the words of `text` that the index knows, then for the
 * prefixes (at least `minPrefixLength` characters) of longer words that are terms
 * themselves, at `prefixWeight` ("cryptocurrency" also finds "crypto", "transcripts"
 * finds "transcript").
 */
function queryTerms(data: IndexData, text: string): Map<number, number> {
  const { argumentWeight, dedupeQueryTerms, prefixWeight, minPrefixLength } = data.config;
  const terms = new Map<number, number>();
  const words: { term: string; weight: number }[] = [];
  for (const part of queryParts(text)) {
    const weight = part.argument ? argumentWeight : 1;
    if (weight <= 0) continue;
    for (const term of data.tokenizer.terms(part.text)) {
      words.push({ term, weight });
      const number = data.termNumbers.get(term);
      if (number === undefined) continue;
      const previous = terms.get(number) ?? 0;
      terms.set(number, dedupeQueryTerms ? Math.max(previous, weight) : previous + weight);
    }
  }
  if (prefixWeight > 0) {
    for (const { term, weight } of words) {
      for (let length = minPrefixLength, end = Math.min(term.length, MAX_PREFIX_CHARS + 1); length < end; length++) {
        const number = data.termNumbers.get(term.slice(0, length));
        if (number === undefined || terms.has(number)) continue;
        terms.set(number, prefixWeight * weight);
      }
    }
  }
  return terms;
}

function scoreText(data: IndexData, text: string): QueryScores | undefined {
  const terms = queryTerms(data, text);
  return terms.size === 0 ? undefined : scoreTerms(data, terms);
}

function maxOf(scores: Float64Array, docs: readonly number[]): number {
  let max = 0;
  for (const d of docs) if (scores[d]! > max) max = scores[d]!;
  return max;
}

/** The best documents for `query`, best first; ties by id. */
export function search(index: SearchIndex, fullQuery: string, options: SearchOptions = {}): SearchHit[] {
  const query = fullQuery.length > MAX_SEARCH_QUERY_CHARS ? fullQuery.slice(0, MAX_SEARCH_QUERY_CHARS) : fullQuery;
  const data = indexData(index);
  const limit = Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT);
  if (!(limit > 0)) return [];
  const whole = scoreText(data, query);
  if (whole === undefined) return [];
  const { scores, touched } = whole;

  const clauses = data.config.clauseWeight > 0 ? splitClauses(query) : [];
  if (clauses.length > 1) {
    const top = maxOf(scores, touched);
    const bestShare = new Float64Array(scores.length);
    for (const clause of clauses) {
      const part = scoreText(data, clause);
      if (part === undefined) continue;
      const best = maxOf(part.scores, part.touched);
      for (const d of part.touched) {
        if (scores[d] === 0 && bestShare[d] === 0) touched.push(d); // only if a clause reads a word differently
        bestShare[d] = Math.max(bestShare[d]!, part.scores[d]! / best);
      }
    }
    for (const d of touched) scores[d]! += data.config.clauseWeight * top * bestShare[d]!;
  }

  const { filter } = options;
  const accept = filter === undefined ? undefined : (d: number) => filter(data.ids[d]!);
  return topK(touched, scores, limit, accept).map((d) => ({ id: data.ids[d]!, score: scores[d]! }));
}
