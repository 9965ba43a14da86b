/**
 * A cache from words to whatever a caller derives from them (for the index build: term
 * numbers), fed straight from text. ASCII text is scanned by hand: each word's hash is
 * computed while scanning and the word is compared in place, so a word seen before
 * costs neither a substring nor a string hash. Other text goes through the tokenizer's
 * own word splitting and a Map. Both paths find exactly the words `forEachWord` finds.
 */
import type { Tokenizer } from "./tokenize.js";

export interface WordTable<T> {
  /** Calls `visit` with the value of each word of `text`, in order. */
  forEach(text: string, visit: (value: T) => void): void;
}

const NON_ASCII = /[^\x00-\x7f]/;
const UNDERSCORE = 95;
const HYPHEN = 45;
const INITIAL_CAPACITY = 1 << 14;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

const isAlphanumeric = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

/** `derive` runs once per distinct word; `joined` must match the tokenizer's `splitIdentifiers`. */
export function createWordTable<T>(tokenizer: Tokenizer, joined: boolean, derive: (word: string) => T): WordTable<T> {
  const words: string[] = [];
  const values: T[] = [];
  let slots = new Int32Array(INITIAL_CAPACITY).fill(-1);
  let hashes = new Int32Array(INITIAL_CAPACITY);
  const byWord = new Map<string, T>();

  function insert(hash: number, index: number): void {
    const mask = slots.length - 1;
    let at = hash & mask;
    while (slots[at] !== -1) at = (at + 1) & mask;
    slots[at] = index;
    hashes[at] = hash;
  }

  function grow(): void {
    const oldSlots = slots;
    const oldHashes = hashes;
    slots = new Int32Array(oldSlots.length * 2).fill(-1);
    hashes = new Int32Array(oldSlots.length * 2);
    for (let i = 0; i < oldSlots.length; i++) if (oldSlots[i] !== -1) insert(oldHashes[i]!, oldSlots[i]!);
  }

  /** The value for text[start, end), whose hash is `hash`. */
  function lookup(text: string, start: number, end: number, hash: number): T {
    const mask = slots.length - 1;
    const length = end - start;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const index = slots[at]!;
      if (index === -1) break;
      if (hashes[at] !== hash) continue;
      const word = words[index]!;
      if (word.length !== length) continue;
      let same = true;
      for (let k = 0; k < length; k++) {
        if (word.charCodeAt(k) !== text.charCodeAt(start + k)) {
          same = false;
          break;
        }
      }
      if (same) return values[index]!;
    }
    const word = text.slice(start, end);
    const value = derive(word);
    words.push(word);
    values.push(value);
    if (words.length * 2 > slots.length) grow();
    insert(hash, words.length - 1);
    return value;
  }

  function forEach(text: string, visit: (value: T) => void): void {
    if (NON_ASCII.test(text)) {
      tokenizer.forEachWord(text, (word) => {
        let value = byWord.get(word);
        if (value === undefined) {
          value = derive(word);
          byWord.set(word, value);
        }
        visit(value);
      });
      return;
    }
    const n = text.length;
    let i = 0;
    while (i < n) {
      let c = text.charCodeAt(i);
      if (!(isAlphanumeric(c) || (!joined && c === UNDERSCORE))) {
        i++;
        continue;
      }
      const start = i;
      let hash = FNV_OFFSET;
      if (!joined) {
        while (i < n && (isAlphanumeric((c = text.charCodeAt(i))) || c === UNDERSCORE)) {
          hash = Math.imul(hash ^ c, FNV_PRIME);
          i++;
        }
      } else {
        while (i < n && isAlphanumeric((c = text.charCodeAt(i)))) {
          hash = Math.imul(hash ^ c, FNV_PRIME);
          i++;
        }
        for (;;) {
          // `[_-]+` continues the word only if a letter or digit follows.
          let j = i;
          let joinHash = hash;
          while (j < n && ((c = text.charCodeAt(j)) === UNDERSCORE || c === HYPHEN)) {
            joinHash = Math.imul(joinHash ^ c, FNV_PRIME);
            j++;
          }
          if (j === i || j >= n || !isAlphanumeric(text.charCodeAt(j))) break;
          i = j;
          hash = joinHash;
          while (i < n && isAlphanumeric((c = text.charCodeAt(i)))) {
            hash = Math.imul(hash ^ c, FNV_PRIME);
            i++;
          }
        }
      }
      visit(lookup(text, start, i, hash));
    }
  }

  return { forEach };
}
