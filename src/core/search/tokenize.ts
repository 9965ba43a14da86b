/**
 * Text to search terms. Words are runs of letters, marks and digits; with
 * `splitIdentifiers` a word joined by `_` or `-` or written in camelCase is split into
 * its parts ("getStoryWithComments" → get, story, with, comments; "mind2web" → mind, 2,
 * web), and `keepCompounds` also keeps the parts joined ("getstorywithcomments"), so a
 * tool name written any way matches. Chinese and Japanese runs, which have no spaces,
 * become overlapping character pairs. Terms are lowercased (NFKC first when the text
 * is not ASCII), stop words dropped, then stemmed. The same tokenizer must run on
 * documents and queries; it is a pure function of its configuration and input.
 */
import { stemmerFor } from "./stem.js";
import { STOP_WORDS } from "./stop-words.js";
import type { TokenizerConfig } from "./types.js";

export interface Tokenizer {
  /** Calls `visit` with each word of `text` as written, in order. */
  forEachWord(text: string, visit: (word: string) => void): void;
  /** The terms of one word as `forEachWord` gives it (remembered). */
  word(word: string): WordTerms;
  /** Terms of prose, a query or any other text, in order (repeats kept); `compounds` defaults to `keepCompounds`. */
  terms(text: string, compounds?: boolean): string[];
  /** One term for a whole identifier, however it is written ("list_directory" → "listdirectory"). */
  identifier(name: string): string[];
}

/** A word's terms: its kept parts (stemmed), and the parts joined if it had several. */
export interface WordTerms {
  readonly parts: readonly string[];
  readonly compound?: string;
}

/** Distinct words whose terms a tokenizer remembers; past this it computes without caching. */
export const TOKENIZER_CACHE_LIMIT = 100_000;

/** A word: letters, marks and digits, joined by `_` or `-` when identifiers are split. */
const JOINED_WORD = /[\p{L}\p{M}\p{N}]+(?:[_-]+[\p{L}\p{M}\p{N}]+)*/gu;
/** A word as `\w+` sees it (underscores inside); used when identifiers are not split. */
const PLAIN_WORD = /[\p{L}\p{M}\p{N}_]+/gu;
/** Parts of one word: an acronym (with a plural s: "APIs"), a (capitalized) lowercase run, digits, or other letters. */
const WORD_PART = /\p{Lu}{2,}s(?!\p{Ll})|\p{Lu}+(?!\p{Ll})\p{M}*|\p{Lu}?[\p{Ll}\p{M}]+|\p{N}+|[\p{Lo}\p{Lm}\p{Lt}\p{M}]+/gu;
const ASCII_WORD_PART = /[A-Z]{2,}s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
/** Scripts written without spaces between words. */
const UNSPACED_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const HAS_UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const NON_ASCII = /[^\x00-\x7f]/;
const NOT_ALPHANUMERIC = /[^A-Za-z0-9]+/g;

export function createTokenizer(config: TokenizerConfig): Tokenizer {
  const stem = stemmerFor(config.stemmer);
  const cache = new Map<string, WordTerms>();

  const keep = (part: string): boolean =>
    (part.length >= config.minTermLength || HAS_UNSPACED.test(part)) && !(config.stopWords && STOP_WORDS.has(part));

  /** Terms of one word: its kept parts, stemmed, then the compound. */
  function wordTerms(original: string): WordTerms {
    if (!config.splitIdentifiers) {
      const word = original.toLowerCase();
      return { parts: keep(word) ? [stem(word)] : [] };
    }
    const parts = splitParts(original);
    const kept: string[] = [];
    for (const part of parts) if (keep(part)) kept.push(stem(part));
    if (parts.length > 1 && !HAS_UNSPACED.test(original)) {
      const compound = parts.join("");
      if (compound.length >= config.minTermLength) return { parts: kept, compound: stem(compound) };
    }
    return { parts: kept };
  }

  function word(original: string): WordTerms {
    const hit = cache.get(original);
    if (hit !== undefined) return hit;
    const computed = wordTerms(original);
    if (cache.size < TOKENIZER_CACHE_LIMIT) cache.set(original, computed);
    return computed;
  }

  function forEachWord(text: string, visit: (word: string) => void): void {
    if (!NON_ASCII.test(text)) {
      scanAscii(text, config.splitIdentifiers, visit);
      return;
    }
    const pattern = config.splitIdentifiers ? JOINED_WORD : PLAIN_WORD;
    const normalized = text.normalize("NFKC");
    pattern.lastIndex = 0;
    for (let match = pattern.exec(normalized); match !== null; match = pattern.exec(normalized)) {
      const next = pattern.lastIndex;
      visit(match[0]);
      pattern.lastIndex = next; // `visit` may tokenize too
    }
  }

  function terms(text: string, compounds = config.keepCompounds): string[] {
    const out: string[] = [];
    forEachWord(text, (original) => {
      const terms = word(original);
      for (const term of terms.parts) out.push(term);
      if (compounds && terms.compound !== undefined) out.push(terms.compound);
    });
    return out;
  }

  function identifier(name: string): string[] {
    if (config.splitIdentifiers && !NON_ASCII.test(name)) {
      // The parts of ASCII words are all their letters and digits.
      const joined = name.replace(NOT_ALPHANUMERIC, "").toLowerCase();
      return joined.length > 0 ? [stem(joined)] : [];
    }
    const words: string[] = [];
    forEachWord(name, (original) => words.push(original));
    if (!config.splitIdentifiers) return words.map((w) => w.toLowerCase());
    const joined = words.flatMap(splitParts).join("");
    return joined.length > 0 ? [stem(joined)] : [];
  }

  return { forEachWord, word, terms, identifier };
}

const isAlphanumeric = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
const UNDERSCORE = 95;
const HYPHEN = 45;

/**
 * The words of ASCII text without a regular expression (the hot loop of an index build):
 * what JOINED_WORD finds with `joined` (`[A-Za-z0-9]+(?:[_-]+[A-Za-z0-9]+)*`), else what
 * PLAIN_WORD finds (`[A-Za-z0-9_]+`).
 */
function scanAscii(text: string, joined: boolean, visit: (word: string) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (!(isAlphanumeric(c) || (!joined && c === UNDERSCORE))) {
      i++;
      continue;
    }
    const start = i;
    if (!joined) {
      while (i < n && (isAlphanumeric((c = text.charCodeAt(i))) || c === UNDERSCORE)) i++;
      visit(text.slice(start, i));
      continue;
    }
    while (i < n && isAlphanumeric(text.charCodeAt(i))) i++;
    for (;;) {
      let j = i;
      while (j < n && ((c = text.charCodeAt(j)) === UNDERSCORE || c === HYPHEN)) j++;
      if (j === i || j >= n || !isAlphanumeric(text.charCodeAt(j))) break;
      i = j;
      while (i < n && isAlphanumeric(text.charCodeAt(i))) i++;
    }
    visit(text.slice(start, i));
  }
}

/** Lowercase parts of one word; runs of unspaced scripts become character pairs. */
export function splitParts(word: string): string[] {
  const parts: string[] = [];
  const pattern = NON_ASCII.test(word) ? WORD_PART : ASCII_WORD_PART;
  for (const piece of word.split(/[_-]+/)) {
    for (const match of piece.matchAll(pattern)) {
      const part = match[0].toLowerCase();
      if (HAS_UNSPACED.test(part)) parts.push(...unspacedTerms(part));
      else parts.push(part);
    }
  }
  return parts;
}

/** "必应搜索" → 必应, 应搜, 搜索; other letters around such runs stay whole. */
function unspacedTerms(text: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const match of text.matchAll(UNSPACED_RUN)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    const run = [...match[0]];
    if (run.length === 1) out.push(run[0]!);
    for (let i = 0; i + 1 < run.length; i++) out.push(run[i]! + run[i + 1]!);
    last = match.index + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
