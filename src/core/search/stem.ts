/**
 * English stemmers for search terms, each a pure function of one lowercase word:
 * `plural` folds plurals only, `light` also strips the verb and noun endings that tool
 * texts and tasks vary on ("charging stations" ~ "charge station", "creation" ~
 * "create"), and `porter` is M. F. Porter's 1980 algorithm. Words that are not plain
 * a-z (digits, other scripts) are returned unchanged. Stems are not words; the same
 * stemmer must run on documents and queries.
 */
import type { StemmerName } from "./types.js";

const ASCII_WORD = /^[a-z]+$/;
/** Words this short are never stemmed. */
const MIN_STEM_INPUT = 4;

export function stemmerFor(name: StemmerName): (word: string) => string {
  switch (name) {
    case "none":
      return (word) => word;
    case "plural":
      return (word) => (ASCII_WORD.test(word) && word.length >= MIN_STEM_INPUT ? plural(word) : word);
    case "light":
      return (word) => (ASCII_WORD.test(word) && word.length >= MIN_STEM_INPUT ? light(word) : word);
    case "porter":
      return (word) => (ASCII_WORD.test(word) && word.length > 2 ? porter(word) : word);
  }
}

// ── plural ─────────────────────────────────────────────────────────────────

function plural(word: string): string {
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|x|ch|sh|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

// ── light ──────────────────────────────────────────────────────────────────

const VOWEL = /[aeiouy]/;
/** A stem must keep this many characters and a vowel. */
const MIN_STEM = 3;

function strip(word: string, suffix: string): string | undefined {
  if (!word.endsWith(suffix)) return undefined;
  const stem = word.slice(0, -suffix.length);
  return stem.length >= MIN_STEM && VOWEL.test(stem) ? stem : undefined;
}

/** "runn" → "run", but not "pass", "call" or "buzz" (kept doubled in their base form too). */
function undouble(stem: string): string {
  const last = stem[stem.length - 1]!;
  return stem.length > MIN_STEM && last === stem[stem.length - 2] && !"lsz".includes(last) ? stem.slice(0, -1) : stem;
}

/**
 * Plurals, then one of -ing/-ed/-ion(after t or s)/-ly/-ment/-ness, then a final -e: so
 * "create", "creates", "created", "creating" and "creation" all become "creat".
 */
function light(word: string): string {
  let stem = plural(word);
  const ing = strip(stem, "ing");
  const ed = ing === undefined ? strip(stem, "ed") : undefined;
  if (ing !== undefined) stem = undouble(ing);
  else if (ed !== undefined) stem = undouble(ed);
  else if (/[ts]ion$/.test(stem) && stem.length > 5) stem = stem.slice(0, -3);
  else stem = strip(stem, "ness") ?? strip(stem, "ment") ?? strip(stem, "ly") ?? stem;
  if (stem.endsWith("e") && stem.length > MIN_STEM && !stem.endsWith("ee")) stem = stem.slice(0, -1);
  return stem;
}

// ── Porter (1980) ──────────────────────────────────────────────────────────

function isConsonant(word: string, i: number): boolean {
  const c = word[i]!;
  if ("aeiou".includes(c)) return false;
  if (c === "y") return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in the stem. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    m++;
    while (i < n && isConsonant(stem, i)) i++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(stem: string): boolean {
  const n = stem.length;
  return n >= 2 && stem[n - 1] === stem[n - 2] && isConsonant(stem, n - 1);
}

/** Consonant-vowel-consonant at the end, the last not w, x or y. */
function endsCvc(stem: string): boolean {
  const n = stem.length;
  if (n < 3) return false;
  return isConsonant(stem, n - 3) && !isConsonant(stem, n - 2) && isConsonant(stem, n - 1) && !"wxy".includes(stem[n - 1]!);
}

type Rule = readonly [suffix: string, replacement: string];

/** Applies the first rule whose suffix matches, if the stem's measure passes; at most one rule. */
function applyRules(word: string, rules: readonly Rule[], minMeasure: number): string {
  for (const [suffix, replacement] of rules) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    return measure(stem) > minMeasure ? stem + replacement : word;
  }
  return word;
}

const STEP2: readonly Rule[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
];

const STEP3: readonly Rule[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];

const STEP4 = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
] as const;

function porter(input: string): string {
  let word = input;
  // Step 1a: plurals.
  if (word.endsWith("sses")) word = word.slice(0, -2);
  else if (word.endsWith("ies")) word = word.slice(0, -2);
  else if (word.endsWith("s") && !word.endsWith("ss")) word = word.slice(0, -1);

  // Step 1b: -eed, -ed, -ing.
  if (word.endsWith("eed")) {
    if (measure(word.slice(0, -3)) > 0) word = word.slice(0, -1);
  } else {
    const suffix = word.endsWith("ed") ? "ed" : word.endsWith("ing") ? "ing" : undefined;
    if (suffix !== undefined && hasVowel(word.slice(0, -suffix.length))) {
      word = word.slice(0, -suffix.length);
      if (word.endsWith("at") || word.endsWith("bl") || word.endsWith("iz")) word += "e";
      else if (endsDoubleConsonant(word) && !"lsz".includes(word[word.length - 1]!)) word = word.slice(0, -1);
      else if (measure(word) === 1 && endsCvc(word)) word += "e";
    }
  }

  // Step 1c: y → i after a vowel in the stem.
  if (word.endsWith("y") && hasVowel(word.slice(0, -1))) word = `${word.slice(0, -1)}i`;

  word = applyRules(word, STEP2, 0);
  word = applyRules(word, STEP3, 0);

  // Step 4: drop a suffix when the stem is long enough (m > 1); -ion only after s or t.
  for (const suffix of STEP4) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    if (measure(stem) > 1 && (suffix !== "ion" || stem.endsWith("s") || stem.endsWith("t"))) word = stem;
    break;
  }

  // Step 5: final -e, final -ll.
  if (word.endsWith("e")) {
    const stem = word.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) word = stem;
  }
  if (word.endsWith("ll") && measure(word) > 1) word = word.slice(0, -1);
  return word;
}
