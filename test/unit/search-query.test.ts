import { describe, expect, it } from "vitest";
import { queryParts, splitClauses } from "../../src/core/search/query.js";
import { topK } from "../../src/core/search/top-k.js";

const argumentsOf = (query: string) => queryParts(query).filter((p) => p.argument).map((p) => p.text);

describe("queryParts", () => {
  it("marks quoted strings, URLs and e-mail addresses as arguments", () => {
    expect(argumentsOf("Replace 'old_term' with \"new_term\" in `notes.md`")).toEqual(["'old_term'", '"new_term"', "`notes.md`"]);
    expect(argumentsOf("Summarize https://example.net/blog/post2 and mail it to ann@example.com")).toEqual(["https://example.net/blog/post2", "ann@example.com"]);
    expect(argumentsOf("Find “Corridor in the Asylum” and ‘Starry Night’")).toEqual(["“Corridor in the Asylum”", "‘Starry Night’"]);
  });

  it("leaves apostrophes, file paths and plain text alone", () => {
    expect(argumentsOf("I'm sure it's the user's file")).toEqual([]);
    expect(argumentsOf("Read /root/pdf/WebArena.pdf and list ~/docs")).toEqual([]);
  });

  it("keeps every character, in order", () => {
    const query = "Post \"hello\" to https://x.io now, then 'bye'.";
    expect(queryParts(query).map((p) => p.text).join("")).toBe(query);
  });
});

describe("splitClauses", () => {
  it("splits a task of several steps at sentence ends, semicolons and step words", () => {
    expect(splitClauses("Find the repo. Then list its issues; finally close the oldest")).toEqual(["Find the repo", "list its issues", "close the oldest"]);
    expect(splitClauses("Get the weather, and then send it to Slack")).toEqual(["Get the weather", "send it to Slack"]);
  });

  it("keeps a one-step task whole (dots inside words do not split)", () => {
    expect(splitClauses("Open example.com/login and click Sign Up")).toEqual(["Open example.com/login and click Sign Up"]);
    expect(splitClauses("")).toEqual([]);
  });
});

describe("topK", () => {
  it("returns the k best by score, ties by document number, whatever the input order", () => {
    const scores = [1, 5, 3, 5, 0.5, 3];
    expect(topK([0, 1, 2, 3, 4, 5], scores, 4)).toEqual([1, 3, 2, 5]);
    expect(topK([5, 4, 3, 2, 1, 0], scores, 4)).toEqual([1, 3, 2, 5]);
    expect(topK([5, 4, 3, 2, 1, 0], scores, 100)).toEqual([1, 3, 2, 5, 0, 4]);
    expect(topK([1, 2], scores, 0)).toEqual([]);
  });

  it("asks `accept` only about documents that would make the cut, and skips the refused", () => {
    const scores = [1, 5, 3, 5, 0.5, 3];
    const asked: number[] = [];
    const odd = (d: number) => {
      asked.push(d);
      return d % 2 === 1;
    };
    expect(topK([0, 1, 2, 3, 4, 5], scores, 2, odd)).toEqual([1, 3]);
    expect(asked).toEqual([0, 1, 2, 3]); // 4 and 5 never beat the worst of the best two
  });
});

describe("binary", () => {
  it("base64 matches the standard encoding and round-trips every length", async () => {
    const { fromBase64, toBase64 } = await import("../../src/core/search/binary.js");
    for (let length = 0; length < 40; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 255);
      const text = toBase64(bytes);
      expect(text).toBe(btoa(String.fromCharCode(...bytes)));
      expect(fromBase64(text)).toEqual(bytes);
    }
    expect(() => fromBase64("abc")).toThrowError(/not base64/);
    expect(() => fromBase64("ab!d")).toThrowError(/not base64/);
  });

  it("varints round-trip 0 to 2^32 − 1 and refuse truncated or oversized input", async () => {
    const { byteReader, byteWriter } = await import("../../src/core/search/binary.js");
    const values = [0, 1, 127, 128, 255, 300, 16_383, 16_384, 2 ** 31, 2 ** 32 - 1];
    const writer = byteWriter(4);
    for (const v of values) writer.uint(v);
    const reader = byteReader(writer.bytes());
    expect(values.map(() => reader.uint())).toEqual(values);
    expect(reader.done()).toBe(true);
    expect(() => byteReader(Uint8Array.from([0x80])).uint()).toThrowError(/ends early/);
    expect(() => byteReader(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x7f])).uint()).toThrowError(/too large/);
  });
});
