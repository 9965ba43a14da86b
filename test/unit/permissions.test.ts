/**
 * The permission ruleset: anchored `*` wildcards, last match wins, deny from either gate
 * wins for sampling, tool decisions and listing, and the config shape (sections plus
 * top-level tool patterns).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  elicitationDecision,
  hiddenFromListing,
  matchRule,
  patternToRegExp,
  PermissionConfigSchema,
  samplingDecision,
  toolDecision,
  toolRules,
} from "../../src/core/permissions.js";

describe("matchRule", () => {
  it("patterns are anchored; * matches any run of characters, including none", () => {
    const rules = { "github_*": "deny", "*_search": "ask", exact: "allow" } as const;
    expect(matchRule(rules, "github_create_issue")).toBe("deny");
    expect(matchRule(rules, "github_")).toBe("deny");
    expect(matchRule(rules, "my_github_x")).toBeUndefined();
    expect(matchRule(rules, "docs_search")).toBe("ask");
    expect(matchRule(rules, "docs_search_more")).toBeUndefined();
    expect(matchRule(rules, "exact")).toBe("allow");
    expect(matchRule(rules, "exactly")).toBeUndefined();
    expect(matchRule(rules, "inexact")).toBeUndefined();
  });

  it("everything but * is literal (dots, brackets, plus, question marks)", () => {
    expect(patternToRegExp("a.b").test("axb")).toBe(false);
    expect(patternToRegExp("a.b").test("a.b")).toBe(true);
    expect(patternToRegExp("f(x)+[y]?").test("f(x)+[y]?")).toBe(true);
    expect(patternToRegExp("f(x)+[y]?").test("fx")).toBe(false);
    expect(patternToRegExp("a*b*c").test("a--b--c")).toBe(true);
    expect(patternToRegExp("*").test("")).toBe(true);
    expect(patternToRegExp("a\\*").test("a\\zzz")).toBe(true);
  });

  it("the last matching rule in insertion order wins", () => {
    expect(matchRule({ "*": "deny", notes: "allow" }, "notes")).toBe("allow");
    expect(matchRule({ notes: "allow", "*": "deny" }, "notes")).toBe("deny");
    expect(matchRule({ "*": "deny", notes: "allow" }, "github")).toBe("deny");
    expect(matchRule(undefined, "x")).toBeUndefined();
  });
});

describe("samplingDecision: two gates, a deny from either wins, then an ask", () => {
  const rules = { "*": "deny", notes: "allow", "ask_*": "ask" } as const;
  it("server policy defaults to ask; rules without a match leave it", () => {
    expect(samplingDecision(undefined, undefined, "notes")).toBe("ask");
    expect(samplingDecision("allow", {}, "notes")).toBe("allow");
    expect(samplingDecision("deny", {}, "notes")).toBe("deny");
  });
  it("deny from either wins", () => {
    expect(samplingDecision("allow", rules, "github")).toBe("deny");
    expect(samplingDecision("deny", rules, "notes")).toBe("deny");
  });
  it("then ask from either", () => {
    expect(samplingDecision("allow", rules, "ask_me")).toBe("ask");
    expect(samplingDecision("ask", rules, "notes")).toBe("ask");
  });
  it("allow only when both allow", () => {
    expect(samplingDecision("allow", rules, "notes")).toBe("allow");
  });
});

describe("tool rules", () => {
  const config = PermissionConfigSchema.parse({ "github_*": "deny", docs_search: "allow", "fs_write_*": "ask", mcp_sampling: { "*": "deny" } });
  const rules = toolRules(config);
  it("top-level patterns are tool rules; the sections are not", () => {
    expect(rules).toEqual({ "github_*": "deny", docs_search: "allow", "fs_write_*": "ask" });
  });
  it("toolDecision: default allow", () => {
    expect(toolDecision(rules, "github_list")).toBe("deny");
    expect(toolDecision(rules, "fs_write_file")).toBe("ask");
    expect(toolDecision(rules, "docs_search")).toBe("allow");
    expect(toolDecision(rules, "anything_else")).toBe("allow");
  });
  it("hiddenFromListing only for deny", () => {
    expect(hiddenFromListing(rules, "github_list")).toBe(true);
    expect(hiddenFromListing(rules, "fs_write_file")).toBe(false);
    expect(hiddenFromListing(rules, "other")).toBe(false);
    expect(hiddenFromListing({ "*": "deny" }, "other")).toBe(true);
    expect(hiddenFromListing({ "*": "deny", other: "ask" }, "other")).toBe(false);
  });
  it("a `tools` section and top-level patterns combine in the order written", () => {
    const both = toolRules(PermissionConfigSchema.parse({ "*": "deny", tools: { "docs_*": "allow" }, docs_secret: "deny" }));
    expect(both).toEqual({ "*": "deny", "docs_*": "allow", docs_secret: "deny" });
    expect(toolDecision(both, "docs_search")).toBe("allow");
    expect(toolDecision(both, "docs_secret")).toBe("deny");
    expect(toolDecision(both, "github_x")).toBe("deny");
    // A pattern written twice counts at its later place.
    expect(Object.keys(toolRules(PermissionConfigSchema.parse({ x: "deny", tools: { "*": "allow", x: "ask" } })))).toEqual(["*", "x"]);
  });
});

describe("elicitationDecision", () => {
  it("deny refuses; allow and no rule both ask (a person must answer)", () => {
    expect(elicitationDecision({ "*": "deny", forms: "allow" }, "other")).toBe("deny");
    expect(elicitationDecision({ "*": "deny", forms: "allow" }, "forms")).toBe("ask");
    expect(elicitationDecision(undefined, "forms")).toBe("ask");
  });
});

describe("PermissionConfigSchema", () => {
  it("accepts sections and top-level tool patterns", () => {
    expect(PermissionConfigSchema.safeParse({ mcp_sampling: { "*": "deny", notes: "allow" }, mcp_elicitation: { "*": "ask" }, tools: { a: "ask" }, "b*": "deny" }).success).toBe(true);
  });
  it("refuses unknown actions and a section that is not a ruleset, naming the path", () => {
    const bad = PermissionConfigSchema.safeParse({ "github_*": "block" });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(["github_*"]);
    const section = PermissionConfigSchema.safeParse({ mcp_sampling: "deny" });
    expect(section.success).toBe(false);
    expect(section.error!.issues[0]!.path).toEqual(["mcp_sampling"]);
    expect(PermissionConfigSchema.safeParse({ mcp_sampling: { notes: "maybe" } }).success).toBe(false);
  });
});

describe("pattern properties (fast-check)", () => {
  const name = fc.string({ minLength: 1, maxLength: 20 });
  it("a pattern without * matches exactly itself", () => {
    fc.assert(
      fc.property(name, name, (pattern, other) => {
        fc.pre(!pattern.includes("*"));
        expect(patternToRegExp(pattern).test(pattern)).toBe(true);
        expect(patternToRegExp(pattern).test(other)).toBe(other === pattern);
      }),
    );
  });
  it("prefix* matches exactly the names that start with the prefix", () => {
    fc.assert(
      fc.property(name, name, (prefix, rest) => {
        fc.pre(!prefix.includes("*"));
        expect(patternToRegExp(`${prefix}*`).test(prefix + rest)).toBe(true);
        expect(patternToRegExp(`${prefix}*`).test(rest)).toBe(rest.startsWith(prefix));
      }),
    );
  });
});
