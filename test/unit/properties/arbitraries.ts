/**
 * Shared generators for the property tests: hostile strings (lone surrogates, control
 * characters, huge), hostile numbers (NaN, ±Infinity, -0), JSON-ish values with prototype
 * keys as own properties (as JSON.parse makes them) and deep nesting; and the checks every
 * property shares: only typed errors escape, and nothing pollutes Object.prototype.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { McpEdgeError } from "../../../src/core/errors.js";

/** Keys that have bitten merge and assign code elsewhere. */
export const PROTO_KEYS = ["__proto__", "constructor", "prototype", "polluted", "toString", "hasOwnProperty", "valueOf"] as const;

/** Lone surrogates, NUL and friends: text that is not well-formed UTF-16 or not printable. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("\uD800", "\uDFFF", "a\uD83D", "\uDE00b", "\u0000", "\r\n", "\u2028", "\uFEFF", "💥", "é", "İ", "ǅ", "ß", "ﬃ", "%00", "../", "\\"),
  fc.array(fc.constantFrom("\uD800", "\uDC00", "\u0000", "x", "_", "-", " ", "\n", "\r", ":", "'", '"', "é", "😀", "A", "9"), { maxLength: 40 }).map((a) => a.join("")),
);

/** 10,000 to 50,000 repetitions of one unit: a word, a lone surrogate, an identifier, spaces. */
export const hugeString: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 10_000, max: 50_000 }), fc.constantFrom("x", "\uD800", "é ", "ab_", "A", "\n"))
  .map(([n, unit]) => unit.repeat(n));

/** Any string a peer might send: ordinary, any code point incl. surrogate halves, nasty, now and then huge. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 24, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 16, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 16, arbitrary: nastyString },
  { weight: 8, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 1, arbitrary: hugeString },
);

/** NaN, ±Infinity, -0, huge and tiny values beside ordinary ones. */
export const anyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, Number.MAX_SAFE_INTEGER + 2, Number.MIN_VALUE, -1, 1e308),
  fc.double(),
  fc.integer(),
);

/** An object key: ordinary, nasty, or a prototype key. */
export const anyKey: fc.Arbitrary<string> = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...PROTO_KEYS), nastyString);

/** `depth` nested arrays or objects around a leaf, built without recursion. */
export function nested(depth: number, leaf: unknown, asObject: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
}

/**
 * JSON-like values (plus NaN, ±Infinity, -0 and undefined, which JSON cannot carry but a
 * JS caller can), whose objects hold prototype keys as own properties (Object.fromEntries
 * defines them the way JSON.parse does), with the occasional deep nesting.
 */
export const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: fc.oneof(anyString, anyNumber, fc.boolean(), fc.constant(null), fc.constant(undefined)) },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 5 }) },
    { weight: 2, arbitrary: ownObject(tie("value")) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 100, max: 1_500 }), fc.boolean()).map(([d, asObject]) => nested(d, "deep", asObject)) },
  ),
})).value;

/** An object whose keys may be `__proto__` & co. as own, enumerable properties. */
export function ownObject<T>(value: fc.Arbitrary<T>): fc.Arbitrary<Record<string, T>> {
  return fc.array(fc.tuple(anyKey, value), { maxLength: 6 }).map((entries) => Object.fromEntries(entries) as Record<string, T>);
}

/** A payload that pollutes Object.prototype if anything assigns it through `__proto__`. */
export function pollutionPayload(): Record<string, unknown> {
  return JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}') as Record<string, unknown>;
}

/** Runs `fn`; an exception is fine only if it is one of ours (a McpEdgeError, or what `allowed` accepts). */
export function expectTypedOutcome<T>(fn: () => T, allowed: (error: unknown) => boolean = () => false): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    if (!McpEdgeError.is(error) && !allowed(error)) throw new Error(`untyped error escaped: ${String(error)}`, { cause: error });
    return { ok: false, error };
  }
}

/** Object.prototype is exactly as the runtime made it. */
export function expectNoPollution(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("polluted");
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
}

/** Run counts: thousands where an input is cheap, fewer where each one is big. */
export const RUNS = { cheap: 1_000, medium: 500, heavy: 100 } as const;
