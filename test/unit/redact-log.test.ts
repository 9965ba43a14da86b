import { describe, expect, it } from "vitest";
import { MAX_LOG_STRING, REDACTED, redactLogData, redactLogText } from "../../src/core/redact-log.js";

describe("server log redaction", () => {
  it("drops URL query strings and credentials, and bearer tokens", () => {
    const text = redactLogText("GET https://user:pw@api.example.com/v1/x?token=abc123 with Authorization: Bearer eyJhbGciOi.sig");
    expect(text).toBe(`GET https://api.example.com/v1/x with Authorization: Bearer ${REDACTED}`);
  });

  it("replaces values under secret-looking keys, at any depth, and keeps the rest", () => {
    expect(redactLogData({ user: "ada", apiKey: "k", nested: { password: "p", list: [{ access_token: "t", ok: 1 }] } })).toEqual({
      user: "ada",
      apiKey: REDACTED,
      nested: { password: REDACTED, list: [{ access_token: REDACTED, ok: 1 }] },
    });
  });

  it("cuts long strings and deep structures", () => {
    expect((redactLogData("x".repeat(MAX_LOG_STRING + 50)) as string).length).toBeLessThan(MAX_LOG_STRING + 40);
    let deep: unknown = "bottom";
    for (let i = 0; i < 20; i++) deep = { d: deep };
    expect(JSON.stringify(redactLogData(deep))).toContain("[…]");
  });
});
