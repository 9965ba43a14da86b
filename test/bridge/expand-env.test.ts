import { describe, expect, it } from "vitest";
import { expandClaudeRefs, expandOpencodeRefs } from "../../bridge/src/expand-env.js";

const env = { A: "1", EMPTY: "" };

describe("expandClaudeRefs", () => {
  it("replaces ${VAR}, uses :- defaults, and names every unset variable", () => {
    expect(expandClaudeRefs("x${A}y${B:-two}z${EMPTY}", env)).toEqual({ ok: true, value: "x1ytwoz" });
    expect(expandClaudeRefs("${B}-${C}", env)).toEqual({ ok: false, missing: ["B", "C"] });
  });

  it("leaves text without references alone, including $VAR and {env:VAR}", () => {
    expect(expandClaudeRefs("$A {env:A}", env)).toEqual({ ok: true, value: "$A {env:A}" });
  });
});

describe("expandOpencodeRefs", () => {
  it("replaces {env:VAR}, with an unset variable becoming empty as in opencode", () => {
    expect(expandOpencodeRefs("Bearer {env:A}/{env:MISSING}/${A}", env)).toBe("Bearer 1//${A}");
  });
});
