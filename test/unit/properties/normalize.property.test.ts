/**
 * The tool-result normalizer under whatever a server sends: it never throws, its answer
 * always satisfies the API's CallResult schema, attachments are always data URLs, and
 * `_meta`/`metadata` with prototype keys stay plain data (never the metadata's prototype).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { CallResult } from "../../../src/api/schemas.js";
import { nestingDepth } from "../../../src/core/limits.js";
import { MAX_STRUCTURED_DEPTH, normalizeToolResult, type RawToolResult } from "../../../src/core/normalize.js";
import { base64DecodedLength, readResourceAsResult } from "../../../src/core/resources.js";
import { anyString, anyValue, expectNoPollution, nested, ownObject, pollutionPayload, RUNS } from "./arbitraries.js";

afterEach(expectNoPollution);

/** Base64 as servers really send it: canonical, unpadded, with whitespace, url-safe, or not base64 at all. */
const base64ish = fc.oneof(
  fc.uint8Array({ maxLength: 48 }).map((bytes) => btoa(String.fromCharCode(...bytes))),
  fc.constantFrom("AAA", "AA=", "A===", "QQ", "Q Q==", "-_-_", "\uD800", "", "%%%", "aGk=\n"),
  anyString,
);

const block: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.oneof(anyString, anyValue) }),
  fc.record({ type: fc.constantFrom("image", "audio"), data: fc.oneof(base64ish, anyValue), mimeType: fc.oneof(anyString, fc.constant(undefined)) }, { requiredKeys: ["type"] }),
  fc.record(
    {
      type: fc.constant("resource_link"),
      uri: fc.oneof(base64ish.map((b) => `data:image/png;base64,${b}`), fc.constantFrom("data:,hi", "DATA:text/plain;BASE64,aGk=", "file:///x", ""), anyString),
      name: anyString,
      title: anyValue,
      mimeType: anyValue,
    },
    { requiredKeys: ["type"] },
  ),
  fc.record({ type: fc.constant("resource"), resource: fc.oneof(fc.record({ uri: anyString, text: anyValue, blob: fc.oneof(base64ish, anyValue), mimeType: anyValue }, { requiredKeys: [] }), anyValue) }),
  ownObject(anyValue),
  anyValue,
);

const rawResult: fc.Arbitrary<RawToolResult> = fc.record(
  {
    content: fc.oneof({ weight: 4, arbitrary: fc.array(block, { maxLength: 6 }) }, { weight: 1, arbitrary: anyValue }),
    structuredContent: anyValue,
    isError: anyValue,
    _meta: fc.oneof(ownObject(anyValue), fc.constant(pollutionPayload()), anyValue),
    metadata: fc.oneof(ownObject(anyValue), fc.constant(pollutionPayload()), anyValue),
    toolResult: anyValue,
  },
  { requiredKeys: [] },
);

describe("normalizeToolResult (property)", () => {
  it("never throws and always answers a CallResult", () => {
    fc.assert(
      fc.property(rawResult, (raw) => {
        const result = normalizeToolResult(raw);
        expect(CallResult.safeParse(result).success).toBe(true);
        expect(typeof result.output).toBe("string");
        for (const attachment of result.attachments) expect(attachment.url).toMatch(/^data:/i);
        expect(result.isError).toBe(raw.isError === true);
        expect(() => JSON.stringify(result)).not.toThrow();
      }),
      { numRuns: RUNS.medium },
    );
  });

  it("metadata keeps prototype keys as own data and keeps Object.prototype as its prototype", () => {
    fc.assert(
      fc.property(fc.oneof(ownObject(anyValue), fc.constant(pollutionPayload())), (meta) => {
        const { metadata } = normalizeToolResult({ content: [], _meta: meta });
        expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
        const serializable = Object.entries(meta).filter(([, v]) => nestingDepth(v, MAX_STRUCTURED_DEPTH) < MAX_STRUCTURED_DEPTH);
        expect(Object.keys(metadata).sort()).toEqual(serializable.map(([k]) => k).sort());
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("regression: a `__proto__` key in _meta stays in metadata instead of replacing its prototype", () => {
    const { metadata } = normalizeToolResult({ content: [], _meta: pollutionPayload() });
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.hasOwn(metadata, "__proto__")).toBe(true);
    expect((metadata as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(metadata))).toEqual(pollutionPayload());
  });

  it("text blocks come out in order, joined by newlines", () => {
    fc.assert(
      fc.property(fc.array(anyString, { minLength: 1, maxLength: 5 }), (texts) => {
        const { output } = normalizeToolResult({ content: texts.map((text) => ({ type: "text", text })) });
        expect(output).toBe(texts.join("\n"));
      }),
      { numRuns: RUNS.medium },
    );
  });

  it("regression: structured content nested 5,000 deep is named, not a stack overflow", () => {
    const deep = nested(5_000, 1, true);
    expect(normalizeToolResult({ content: [], structuredContent: deep }).output).toMatch(/not shown: nested deeper than 256 levels/);
    expect(normalizeToolResult({ toolResult: deep }).output).toMatch(/not shown/);
    const { metadata } = normalizeToolResult({ content: [], _meta: { deep, fine: 1 } });
    expect(metadata).toEqual({ fine: 1 });
    expect(() => JSON.stringify(metadata)).not.toThrow();
  });

  it("regression: deep structured content is not indented (indentation costs depth² characters)", () => {
    const deep = nested(250, "x", false);
    const { output } = normalizeToolResult({ content: [], structuredContent: deep });
    expect(output).toBe(JSON.stringify(deep));
  });
});

describe("resources/read results (property)", () => {
  const content = fc.record(
    {
      uri: anyString,
      mimeType: fc.option(fc.constantFrom("image/png", "IMAGE/PNG", "text/plain", "application/json", "application/x-thing", "text/markdown; charset=utf-8"), { nil: undefined }),
      text: fc.option(anyString, { nil: undefined }),
      blob: fc.option(base64ish, { nil: undefined }),
    },
    { requiredKeys: ["uri"] },
  );

  it("any contents (non-canonical base64, lone surrogates): a CallResult, never an exception", () => {
    fc.assert(
      fc.property(fc.array(content, { maxLength: 5 }), (contents) => {
        const result = readResourceAsResult(contents);
        expect(CallResult.safeParse(result).success).toBe(true);
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("base64DecodedLength is exact for canonical base64 and never negative for anything", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), anyString, (bytes, junk) => {
        expect(base64DecodedLength(btoa(String.fromCharCode(...bytes)))).toBe(bytes.length);
        expect(base64DecodedLength(junk)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("regression: padding alone ('=') was a negative size", () => {
    expect(base64DecodedLength("=")).toBe(0);
  });
});
