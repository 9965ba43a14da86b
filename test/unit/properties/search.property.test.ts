/**
 * The BM25F tokenizer and search under generated text: terms are non-empty lowercase
 * strings and deterministic; a search never throws, answers at most `limit` hits with
 * finite scores, best first, ids from the index; odd limits (NaN, ±Infinity, -0,
 * fractions) are handled; a serialized index that is not one is a typed parse result.
 * Queries past MAX_SEARCH_QUERY_CHARS are cut, so a hostile query costs bounded time.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildSearchIndex,
  createTokenizer,
  DEFAULT_SEARCH_CONFIG,
  MAX_SEARCH_QUERY_CHARS,
  parseSearchIndex,
  searchIndex,
  serializeSearchIndex,
  type SearchDocument,
} from "../../../src/core/search/index.js";
import { anyNumber, anyString, anyValue, expectNoPollution, nastyString, RUNS } from "./arbitraries.js";

afterEach(expectNoPollution);

const tokenizer = createTokenizer(DEFAULT_SEARCH_CONFIG.tokenizer);

/** Text with words, identifiers, CJK, quotes, URLs and step words mixed in. */
const text = fc.oneof(
  anyString,
  fc
    .array(
      fc.oneof(
        fc.constantFrom("list_directory", "getStoryWithComments", "APIs", "mind2web", "读取文件", "ファイル", "'quoted'", "“typo”", "https://x.y/z?q=1", "a@b.co", "then", "finally,", ".", ";", "İstanbul", "ﬃ"),
        fc.string({ maxLength: 8 }),
        nastyString,
      ),
      { maxLength: 30 },
    )
    .map((words) => words.join(" ")),
);

const docs: fc.Arbitrary<SearchDocument[]> = fc.uniqueArray(
  fc.record(
    {
      id: fc.string({ minLength: 1, maxLength: 12 }),
      server: fc.oneof(fc.constantFrom("fs", "github", "mcp"), fc.string({ maxLength: 8 })),
      name: fc.oneof(fc.constantFrom("read_file", "list_directory", "create_issue", "search", "__proto__", "constructor"), text),
      description: fc.option(text, { nil: undefined }),
      serverDescription: fc.option(text, { nil: undefined }),
      inputSchema: fc.oneof(fc.constant({ type: "object", properties: { path: { type: "string", description: "file path" } } }), anyValue),
    },
    { requiredKeys: ["id", "server", "name"] },
  ),
  { maxLength: 25, selector: (d) => d.id },
);

describe("tokenizer (property)", () => {
  it("terms are non-empty, lowercase and the same every time", () => {
    fc.assert(
      fc.property(text, (input) => {
        const terms = tokenizer.terms(input);
        for (const term of terms) {
          expect(term.length).toBeGreaterThan(0);
          expect(term).toBe(term.toLowerCase());
        }
        expect(tokenizer.terms(input)).toEqual(terms);
        expect(tokenizer.identifier(input).every((t) => t.length > 0)).toBe(true);
      }),
      { numRuns: RUNS.cheap },
    );
  });
});

describe("search (property)", () => {
  it("never throws; at most `limit` hits, finite scores, best first, ids from the index", () => {
    fc.assert(
      fc.property(docs, text, fc.oneof(fc.integer({ min: -2, max: 30 }), anyNumber, fc.constant(undefined)), (list, query, limit) => {
        const index = buildSearchIndex(list);
        const hits = searchIndex(index, query, limit === undefined ? {} : { limit });
        const ids = new Set(list.map((d) => d.id));
        const cap = limit === undefined ? 8 : Number.isNaN(limit) ? 0 : Math.max(0, Math.floor(limit));
        expect(hits.length).toBeLessThanOrEqual(cap);
        for (const hit of hits) {
          expect(ids.has(hit.id)).toBe(true);
          expect(Number.isFinite(hit.score)).toBe(true);
        }
        for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
        expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
      }),
      { numRuns: RUNS.heavy * 3 },
    );
  });

  it("the order of the documents does not change the answer", () => {
    fc.assert(
      fc.property(docs, text, (list, query) => {
        const a = searchIndex(buildSearchIndex(list), query, { limit: 20 });
        const b = searchIndex(buildSearchIndex([...list].reverse()), query, { limit: 20 });
        expect(b.map((h) => h.id)).toEqual(a.map((h) => h.id));
      }),
      { numRuns: RUNS.heavy * 3 },
    );
  });

  it("a serialized index round-trips; any other text is a typed parse failure", () => {
    fc.assert(
      fc.property(docs, fc.oneof(anyString, fc.json()), (list, garbage) => {
        const index = buildSearchIndex(list);
        const parsed = parseSearchIndex(serializeSearchIndex(index));
        expect(parsed.success).toBe(true);
        const bad = parseSearchIndex(garbage);
        if (!bad.success) expect(bad.error.code).toBe("invalidIndex");
      }),
      { numRuns: RUNS.heavy * 3 },
    );
  });

  it("regression: hostile queries (a quote storm, one 100,000-letter word) are cut to MAX_SEARCH_QUERY_CHARS and answer", () => {
    const index = buildSearchIndex([
      { id: "a", server: "fs", name: "read_file", description: "read a file" },
      { id: "b", server: "fs", name: "aaaaaaaa", description: "letters" },
    ]);
    for (const query of [" 'a".repeat(100_000), "a".repeat(100_000), "then read. ".repeat(20_000), "\uD800".repeat(100_000)]) {
      expect(Array.isArray(searchIndex(index, query))).toBe(true);
    }
    expect(MAX_SEARCH_QUERY_CHARS).toBe(4_096);
  });
});
