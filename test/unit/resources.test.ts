import { describe, expect, it } from "vitest";
import { base64DecodedLength, BINARY_RESOURCE_MIME_ALLOW_LIST, MAX_BINARY_RESOURCE_BYTES, readResourceAsResult } from "../../src/core/resources.js";

/** Base64 text of a length that decodes to exactly `bytes` bytes. */
function base64OfSize(bytes: number): string {
  const full = Math.floor(bytes / 3) * 4;
  const rest = bytes % 3;
  return "A".repeat(full) + (rest === 0 ? "" : rest === 1 ? "AA==" : "AAA=");
}

describe("base64DecodedLength", () => {
  it("matches the real decoded length", () => {
    for (const text of ["", "a", "ab", "abc", "abcd", "hello world!", "\u00ff\u0000binary"]) {
      const b64 = Buffer.from(text, "latin1").toString("base64");
      expect(base64DecodedLength(b64), JSON.stringify(text)).toBe(Buffer.from(b64, "base64").length);
    }
  });

  it("ignores whitespace (line-wrapped base64)", () => {
    expect(base64DecodedLength("aGVs\nbG8g\r\nd29y bGQ=")).toBe(11);
  });

  it("base64OfSize helper is right", () => {
    for (const n of [0, 1, 2, 3, 4, 100]) expect(Buffer.from(base64OfSize(n), "base64").length).toBe(n);
  });
});

describe("readResourceAsResult", () => {
  it("text contents go to the output, joined with newlines", () => {
    const result = readResourceAsResult([
      { uri: "demo://resource/static/document/architecture.md", mimeType: "text/markdown", text: "# Architecture" },
      { uri: "demo://b", text: "second" },
    ]);
    expect(result).toEqual({ output: "# Architecture\nsecond", attachments: [], metadata: {}, isError: false });
  });

  it("an allowed binary type becomes a data-URL attachment", () => {
    const result = readResourceAsResult([{ uri: "demo://logo", mimeType: "image/png", blob: "iVBORw0KGgo=" }]);
    expect(result).toEqual({ output: "", attachments: [{ mime: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" }], metadata: {}, isError: false });
  });

  it("every allow-listed type is accepted; MIME is matched case-insensitively", () => {
    for (const mime of BINARY_RESOURCE_MIME_ALLOW_LIST) {
      expect(readResourceAsResult([{ uri: "x://1", mimeType: mime.toUpperCase(), blob: "AAAA" }]).attachments).toEqual([{ mime, url: `data:${mime};base64,AAAA` }]);
    }
  });

  it("a binary type outside the allow-list gives a clear error and no bytes", () => {
    const blob = "UmVzb3VyY2UgMQ==";
    const result = readResourceAsResult([{ uri: "demo://resource/dynamic/blob/1", mimeType: "application/octet-stream", blob }]);
    expect(result.isError).toBe(true);
    expect(result.attachments).toEqual([]);
    expect(result.output).toContain("demo://resource/dynamic/blob/1");
    expect(result.output).toContain("application/octet-stream is not supported");
    expect(result.output).toContain("image/png");
    expect(result.output).not.toContain(blob);
  });

  it("a blob without mimeType counts as application/octet-stream (refused)", () => {
    const result = readResourceAsResult([{ uri: "x://raw", blob: "AAAA" }]);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("application/octet-stream");
  });

  it("exactly MAX_BINARY_RESOURCE_BYTES is accepted; one byte more is refused", () => {
    expect(MAX_BINARY_RESOURCE_BYTES).toBe(10 * 1024 * 1024);
    const atLimit = readResourceAsResult([{ uri: "x://big", mimeType: "application/pdf", blob: base64OfSize(MAX_BINARY_RESOURCE_BYTES) }]);
    expect(atLimit.isError).toBe(false);
    expect(atLimit.attachments).toHaveLength(1);

    const over = readResourceAsResult([{ uri: "x://bigger", mimeType: "application/pdf", blob: base64OfSize(MAX_BINARY_RESOURCE_BYTES + 1) }]);
    expect(over.isError).toBe(true);
    expect(over.attachments).toEqual([]);
    expect(over.output).toBe(`x://bigger: content is ${MAX_BINARY_RESOURCE_BYTES + 1} bytes, over the ${MAX_BINARY_RESOURCE_BYTES}-byte limit`);
  });

  it("problems next to usable content are reported in the output but isError stays false", () => {
    const result = readResourceAsResult([
      { uri: "x://text", text: "hello" },
      { uri: "x://zip", mimeType: "application/zip", blob: "UEsDBA==" },
      { uri: "x://img", mimeType: "image/jpeg", blob: "/9j/4A==" },
    ]);
    expect(result.isError).toBe(false);
    expect(result.output.split("\n")[0]).toBe("hello");
    expect(result.output).toContain("x://zip: binary content of type application/zip is not supported");
    expect(result.attachments).toEqual([{ mime: "image/jpeg", url: "data:image/jpeg;base64,/9j/4A==" }]);
  });

  it("a base64 blob of a textual type is decoded (UTF-8) into the output, not refused", () => {
    const text = "café ☕ — line 1\nline 2";
    const result = readResourceAsResult([
      { uri: "x://plain", mimeType: "text/plain", blob: Buffer.from(text, "utf8").toString("base64") },
      { uri: "x://json", mimeType: "application/json", blob: Buffer.from('{"a":1}', "utf8").toString("base64") },
      { uri: "x://ld", mimeType: "application/ld+json", blob: Buffer.from("[]", "utf8").toString("base64") },
    ]);
    expect(result).toEqual({ output: `${text}\n{"a":1}\n[]`, attachments: [], metadata: {}, isError: false });
  });

  it("text wins over blob in one content item", () => {
    expect(readResourceAsResult([{ uri: "x://1", text: "t", blob: "AAAA", mimeType: "image/png" }])).toMatchObject({ output: "t", attachments: [] });
  });

  it("contents with neither text nor blob are skipped", () => {
    expect(readResourceAsResult([{ uri: "x://empty" }])).toEqual({ output: "", attachments: [], metadata: {}, isError: false });
  });

  it("regression: a textual blob with invalid base64 is a clear problem, not a throw", () => {
    const result = readResourceAsResult([{ uri: "x://bad", mimeType: "text/plain", blob: "%%% not base64 %%%" }]);
    expect(result.isError).toBe(true);
    expect(result.output).toBe("x://bad: content is not valid base64");
  });

  it("regression: textual blobs are held to the same size cap", () => {
    const result = readResourceAsResult([{ uri: "x://huge", mimeType: "text/plain", blob: base64OfSize(MAX_BINARY_RESOURCE_BYTES + 1) }]);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("over the");
  });
});
