import { describe, expect, it } from "vitest";
import {
  catalogBudget,
  MAX_CATALOG_TOKENS,
  renderCatalog,
  UNTRUSTED_HEADER,
  type CatalogEntry,
} from "../../src/core/discovery/catalog-text.js";
import { isMetaTool, META_TOOL_NAMES, metaToolDefinitions } from "../../src/core/discovery/meta-tools.js";
import { ASSUMED_CONTEXT_WINDOW, chooseMode } from "../../src/core/discovery/mode.js";
import { estimateTokens, estimateToolTokens } from "../../src/core/discovery/tokens.js";
import { loadedTools, loadHits, MAX_LOADED_PER_TURN, startTurn } from "../../src/core/discovery/turns.js";

function entries(n: number, servers = 3, description = "Does a useful thing with a resource of some kind"): CatalogEntry[] {
  return Array.from({ length: n }, (_, i) => ({ name: `server${i % servers}_tool_${i}`, server: `server${i % servers}`, description }));
}

describe("chooseMode", () => {
  it("auto switches to search exactly above 5% of the window", () => {
    expect(chooseMode("auto", 5_000, 100_000)).toBe("full");
    expect(chooseMode("auto", 5_001, 100_000)).toBe("search");
  });

  it("an unknown window counts as 200,000 tokens", () => {
    expect(chooseMode("auto", ASSUMED_CONTEXT_WINDOW * 0.05, undefined)).toBe("full");
    expect(chooseMode("auto", ASSUMED_CONTEXT_WINDOW * 0.05 + 1, undefined)).toBe("search");
  });

  it("explicit modes win, and the threshold is configurable", () => {
    expect(chooseMode("full", 10 ** 9, 1000)).toBe("full");
    expect(chooseMode("search", 1, 10 ** 9)).toBe("search");
    expect(chooseMode("auto", 2_000, 100_000, 0.01)).toBe("search");
  });
});

describe("tokens", () => {
  it("estimates four characters per token of the definition's JSON", () => {
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
    const tool = { name: "t", description: "d", inputSchema: { type: "object" } };
    expect(estimateToolTokens(tool)).toBe(Math.ceil(JSON.stringify(tool).length / 4));
  });
});

describe("renderCatalog", () => {
  it("budget: 10% of the available window, at most 20,000; 20,000 when unknown", () => {
    expect(catalogBudget({})).toBe(MAX_CATALOG_TOKENS);
    expect(catalogBudget({ contextWindow: 100_000 })).toBe(10_000);
    expect(catalogBudget({ contextWindow: 100_000, usedTokens: 60_000 })).toBe(4_000);
    expect(catalogBudget({ contextWindow: 1_000_000 })).toBe(MAX_CATALOG_TOKENS);
  });

  it("starts with the untrusted-metadata line", () => {
    const text = renderCatalog(entries(5)).text;
    expect(text.split("\n")[0]).toBe(UNTRUSTED_HEADER);
  });

  it("below 70% context use and if it fits: names with descriptions, grouped by server", () => {
    const result = renderCatalog(entries(30), { contextWindow: 200_000, usedTokens: 100_000 });
    expect(result.style).toBe("descriptions");
    expect(result.text).toContain("## server0");
    expect(result.text).toContain("- server0_tool_0: Does a useful thing");
  });

  it("at 70% context use or more: names only, even if descriptions would fit", () => {
    const result = renderCatalog(entries(30), { contextWindow: 200_000, usedTokens: 140_000 });
    expect(result.style).toBe("names");
    expect(result.text).toContain("server0: server0_tool_0, server0_tool_3");
    expect(result.text).not.toContain("Does a useful thing");
  });

  it("names only when descriptions do not fit the budget", () => {
    const result = renderCatalog(entries(400, 3, "x".repeat(150)), { contextWindow: 60_000 });
    expect(result.style).toBe("names");
    expect(estimateTokens(result.text)).toBeLessThanOrEqual(result.budget);
  });

  it("cut when even names do not fit, saying how many were left out", () => {
    const all = entries(3_000);
    const result = renderCatalog(all, { contextWindow: 50_000 });
    expect(result.style).toBe("truncated");
    expect(result.omitted).toBeGreaterThan(0);
    expect(result.text).toContain(`(${result.omitted} more tools not listed`);
    expect(estimateTokens(result.text)).toBeLessThanOrEqual(result.budget);
    // The largest prefix that fits: one more name would not.
    const listed = all.length - result.omitted;
    expect(result.text).toContain(all[listed - 1]!.name);
    expect(result.text).not.toContain(`${all[listed]!.name},`);
  });

  it("is deterministic", () => {
    expect(renderCatalog(entries(100), { contextWindow: 30_000 })).toEqual(renderCatalog(entries(100), { contextWindow: 30_000 }));
  });
});

describe("turns", () => {
  it("loads hits in order, without duplicates, at most 32", () => {
    let turn = startTurn("t1", "search", "fp");
    turn = loadHits(turn, ["a", "b", "a"], "fp");
    expect(loadedTools(turn, "fp")).toEqual(["a", "b"]);
    turn = loadHits(turn, Array.from({ length: 50 }, (_, i) => `x${i}`), "fp");
    expect(loadedTools(turn, "fp")).toHaveLength(MAX_LOADED_PER_TURN);
    expect(loadedTools(turn, "fp").slice(0, 3)).toEqual(["a", "b", "x0"]);
  });

  it("a new turn starts with none loaded", () => {
    const turn = loadHits(startTurn("t1", "search", "fp"), ["a"], "fp");
    expect(loadedTools(turn, "fp")).toEqual(["a"]);
    expect(loadedTools(startTurn("t2", "search", "fp"), "fp")).toEqual([]);
  });

  it("hits found under another catalog fingerprint are void", () => {
    const turn = loadHits(startTurn("t1", "search", "fp1"), ["a"], "fp1");
    expect(loadedTools(turn, "fp2")).toEqual([]);
    expect(loadedTools(loadHits(turn, ["b"], "fp2"), "fp2")).toEqual(["b"]);
  });
});

describe("meta-tools", () => {
  it("six fixed names, object schemas, the catalog at the end of search_tools' description", () => {
    const defs = metaToolDefinitions("CATALOG-TEXT");
    expect(defs.map((d) => d.name)).toEqual([...META_TOOL_NAMES]);
    for (const def of defs) expect(def.inputSchema.type).toBe("object");
    expect(defs[0]!.description!.endsWith("CATALOG-TEXT")).toBe(true);
    expect(isMetaTool("call_tool")).toBe(true);
    expect(isMetaTool("everything_echo")).toBe(false);
  });
});

describe("searchModeMetaTools", () => {
  it("the meta-tools and their catalog together stay within the catalog budget", async () => {
    const { searchModeMetaTools } = await import("../../src/core/discovery/meta-tools.js");
    const { estimateToolsTokens } = await import("../../src/core/discovery/tokens.js");
    for (const window of [{}, { contextWindow: 128_000 }, { contextWindow: 50_000, usedTokens: 20_000 }]) {
      const { tools, catalog } = searchModeMetaTools(entries(5_000), window);
      expect(estimateToolsTokens(tools)).toBeLessThanOrEqual(catalogBudget(window));
      expect(catalog.style).toBe("truncated");
    }
  });
});
