import { describe, expect, it } from "vitest";
import { clientMetadataDocument, defaultClientMetadataUrl, redirectUrlFor } from "../../src/core/oauth/client-metadata.js";
import { credentialKey } from "../../src/core/oauth/credential-key.js";
import { credentialsKey, formatEnvelope, open, parseEnvelope, seal } from "../../src/core/oauth/envelope.js";
import { expiresAtFrom, isExpired, needsRefresh, REFRESH_SKEW_MS, refreshDueAt } from "../../src/core/oauth/expiry.js";
import { coversScope, scopeList, selectScope, unionScopes } from "../../src/core/oauth/scope.js";
import { SingleFlight } from "../../src/core/oauth/single-flight.js";
import { base64Url, formatState, fromBase64Url, isStateExpired, parseState, STATE_TTL_MS } from "../../src/core/oauth/state.js";

const SESSION = "ses_01HZZZZZZZZZZZZZZZZZZZZZZZ";

describe("state tokens", () => {
  it("round-trip session id and nonce", () => {
    const state = formatState(SESSION, new Uint8Array(18).fill(7));
    expect(parseState(state)).toEqual({ sessionId: SESSION, nonce: base64Url(new Uint8Array(18).fill(7)) });
  });

  it("refuse anything that is not one of ours", () => {
    for (const bad of [undefined, null, "", "nonce-only", `${SESSION}.`, `.${"A".repeat(24)}`, `ses_x.${"A".repeat(24)}`, `${SESSION}.short`, `${SESSION}.${"A".repeat(24)}!`, "x".repeat(500)]) {
      expect(parseState(bad), String(bad)).toBeUndefined();
    }
  });

  it("expire after ten minutes, and are not valid before they were made", () => {
    expect(STATE_TTL_MS).toBe(600_000);
    expect(isStateExpired(1000, 1000)).toBe(false);
    expect(isStateExpired(1000, 1000 + STATE_TTL_MS - 1)).toBe(false);
    expect(isStateExpired(1000, 1000 + STATE_TTL_MS)).toBe(true);
    expect(isStateExpired(1000, 999)).toBe(true);
  });

  it("base64url round-trips every byte value", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect([...fromBase64Url(base64Url(bytes))]).toEqual([...bytes]);
    expect(base64Url(bytes)).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe("the encryption envelope", () => {
  const secret = "a-test-secret-that-is-long-enough-0123456789";

  it("seals and opens a record; the ciphertext does not contain the plaintext", async () => {
    const key = await credentialsKey(secret);
    const sealed = await seal(key, "cred:abc", { access_token: "tok-secret-123" });
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("tok-secret-123");
    expect(await open(key, "cred:abc", sealed)).toEqual({ success: true, value: { access_token: "tok-secret-123" } });
  });

  it("a fresh IV each time", async () => {
    const key = await credentialsKey(secret);
    expect(await seal(key, "k", 1)).not.toBe(await seal(key, "k", 1));
  });

  it("fails for another key, another storage key (AAD) or a tampered ciphertext", async () => {
    const key = await credentialsKey(secret);
    const sealed = await seal(key, "cred:abc", { a: 1 });
    expect((await open(await credentialsKey(`${secret}-other`), "cred:abc", sealed)).success).toBe(false);
    expect((await open(key, "cred:other", sealed)).success).toBe(false);
    const parsed = parseEnvelope(sealed);
    if (!parsed.success) throw new Error(parsed.error);
    parsed.value.ciphertext[0]! ^= 1;
    expect((await open(key, "cred:abc", formatEnvelope(parsed.value))).success).toBe(false);
  });

  it("parses only v1 envelopes with a 12-byte IV", () => {
    expect(parseEnvelope(42).success).toBe(false);
    expect(parseEnvelope("v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA").success).toBe(false);
    expect(parseEnvelope("v1.AAAA.AAAAAAAAAAAAAAAAAAAAAA").success).toBe(false);
    expect(parseEnvelope("v1.AAAAAAAAAAAAAAAA.AAAA").success).toBe(false);
    expect(parseEnvelope("v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA").success).toBe(true);
  });

  it("refuses a short secret", async () => {
    await expect(credentialsKey("short")).rejects.toThrow(/at least 32/);
  });
});

describe("scope selection", () => {
  it("challenge, else configured, else none (the SDK then uses scopes_supported)", () => {
    expect(selectScope({ challenge: "mcp:basic", configured: "files" })).toBe("mcp:basic");
    expect(selectScope({ configured: "files" })).toBe("files");
    expect(selectScope({ challenge: "  ", configured: undefined })).toBeUndefined();
    expect(selectScope({})).toBeUndefined();
  });

  it("a step-up keeps what was granted and adds what the challenge wants", () => {
    expect(selectScope({ challenge: "mcp:basic mcp:write", stepUp: true, granted: "mcp:basic offline" })).toBe("mcp:basic offline mcp:write");
    expect(unionScopes(undefined, "a b", "b c")).toBe("a b c");
    expect(unionScopes(undefined, "")).toBeUndefined();
    expect(scopeList(" a  b ")).toEqual(["a", "b"]);
  });

  it("coversScope says when a step-up already happened", () => {
    expect(coversScope("mcp:admin other", "mcp:admin")).toBe(true);
    expect(coversScope("mcp:basic", "mcp:basic mcp:write")).toBe(false);
    expect(coversScope(undefined, "x")).toBe(false);
  });
});

describe("refresh timing", () => {
  it("refreshes a minute ahead, or at half-life for short tokens; never for tokens without expiry", () => {
    const long = { obtainedAt: 0, expiresAt: expiresAtFrom(0, 3600) };
    expect(refreshDueAt(long)).toBe(3_600_000 - REFRESH_SKEW_MS);
    expect(needsRefresh(long, 3_600_000 - REFRESH_SKEW_MS - 1)).toBe(false);
    expect(needsRefresh(long, 3_600_000 - REFRESH_SKEW_MS)).toBe(true);
    const short = { obtainedAt: 0, expiresAt: expiresAtFrom(0, 10) };
    expect(refreshDueAt(short)).toBe(5000);
    expect(needsRefresh({ obtainedAt: 0 }, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(expiresAtFrom(0, undefined)).toBeUndefined();
    expect(expiresAtFrom(0, -5)).toBeUndefined();
    expect(isExpired(long, 3_600_000)).toBe(true);
    expect(isExpired(long, 3_599_999)).toBe(false);
  });
});

describe("SingleFlight", () => {
  it("shares one run among concurrent callers of a key, and runs again once settled", async () => {
    const flight = new SingleFlight<string, number>();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const task = async () => {
      runs++;
      await gate;
      return runs;
    };
    const calls = [flight.run("a", task), flight.run("a", task), flight.run("b", task)];
    expect(flight.size).toBe(2);
    release();
    expect(await Promise.all(calls)).toEqual([2, 2, 2]);
    expect(runs).toBe(2);
    expect(flight.size).toBe(0);
    expect(await flight.run("a", task)).toBe(3);
  });

  it("a failure reaches every waiter and does not stick", async () => {
    const flight = new SingleFlight<string, number>();
    const failing = () => Promise.reject(new Error("boom"));
    await expect(Promise.all([flight.run("k", failing), flight.run("k", failing)])).rejects.toThrow("boom");
    expect(await flight.run("k", async () => 1)).toBe(1);
  });
});

describe("credential keys and client metadata", () => {
  it("a changed URL or client id is another key", async () => {
    const a = await credentialKey("https://a.example/mcp", undefined);
    expect(a).toMatch(/^cred:[0-9a-f]{48}$/);
    expect(await credentialKey("https://a.example/mcp", undefined)).toBe(a);
    expect(await credentialKey("https://a.example/mcp?x=1", undefined)).not.toBe(a);
    expect(await credentialKey("https://a.example/mcp", "client")).not.toBe(a);
  });

  it("the client ID metadata document names itself as client_id; only https origins get a default URL", () => {
    expect(clientMetadataDocument("https://edge.example")).toMatchObject({
      client_id: "https://edge.example/oauth/client-metadata.json",
      redirect_uris: ["https://edge.example/oauth/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    expect(redirectUrlFor("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787/oauth/callback");
    expect(defaultClientMetadataUrl("http://127.0.0.1:8787")).toBeUndefined();
  });
});
