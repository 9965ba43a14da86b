import { describe, expect, it } from "vitest";
import { matchCredential, parseCredentialPairs, PrincipalName, PrincipalProps, timingSafeEqual } from "../../src/core/principal.js";

describe("credential lists (BRIDGE_TOKENS, SERVICE_TOKENS, SIGN_IN_USERS)", () => {
  it("parses principal:secret pairs, trimming, keeping colons inside the secret", () => {
    expect(parseCredentialPairs(" alice : s1 ,backend:a:b")).toEqual([
      { principal: "alice", secret: "s1" },
      { principal: "backend", secret: "a:b" },
    ]);
  });

  it("skips entries without both halves or with an invalid principal", () => {
    expect(parseCredentialPairs(":x,alice:,nocolon,,bad name:x,a:b:c:x,ok:1")).toEqual([
      { principal: "a", secret: "b:c:x" },
      { principal: "ok", secret: "1" },
    ]);
    expect(parseCredentialPairs(undefined)).toEqual([]);
  });

  it("matches a presented secret to its principal, and nothing else", () => {
    const pairs = parseCredentialPairs("alice:one,bob:two");
    expect(matchCredential(pairs, "two")).toBe("bob");
    expect(matchCredential(pairs, "tw")).toBeUndefined();
    expect(matchCredential(pairs, "two ")).toBeUndefined();
    expect(matchCredential(pairs, "")).toBeUndefined();
    expect(matchCredential(pairs, undefined)).toBeUndefined();
    expect(matchCredential([], "two")).toBeUndefined();
  });

  it("compares bytes, lengths included", () => {
    expect(timingSafeEqual("abc", "abc")).toBe(true);
    expect(timingSafeEqual("abc", "abd")).toBe(false);
    expect(timingSafeEqual("abc", "abcd")).toBe(false);
    expect(timingSafeEqual("é", "e")).toBe(false);
  });
});

describe("principal names and token props", () => {
  it("allow what can go into a token's user id and a Durable Object name", () => {
    for (const ok of ["local", "alice", "svc.backend-1", "a@b.example"]) expect(PrincipalName.safeParse(ok).success, ok).toBe(true);
    for (const bad of ["", "a:b", "a,b", "-x", "a b", "x".repeat(129)]) expect(PrincipalName.safeParse(bad).success, bad).toBe(false);
  });

  it("props must name a valid principal", () => {
    expect(PrincipalProps.safeParse({ principal: "alice" }).success).toBe(true);
    expect(PrincipalProps.safeParse({}).success).toBe(false);
    expect(PrincipalProps.safeParse({ principal: "a:b" }).success).toBe(false);
  });
});
