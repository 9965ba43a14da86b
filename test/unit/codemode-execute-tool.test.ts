/**
 * Code mode's `execute` tool: which description a window gets (declarations, names,
 * cut names), that it stays within the discovery budget, and the text a script run's
 * outcome becomes for the model.
 */
import { describe, expect, it } from "vitest";
import { boundedDeclarations, codeModeDeclarations, type DeclaredTool } from "../../src/core/codemode/declarations.js";
import { execOutputText } from "../../src/core/codemode/exec-output.js";
import { declarationsForBudget, EXECUTE_INPUT_SCHEMA, EXECUTE_TOOL_NAME, ExecuteArguments, executeTool, MAX_DECLARATION_CHARS } from "../../src/core/codemode/execute-tool.js";
import { catalogBudget } from "../../src/core/discovery/catalog-text.js";
import { estimateToolTokens } from "../../src/core/discovery/tokens.js";

function catalog(count: number): DeclaredTool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `srv${i % 4}_tool-${i}`,
    server: `srv${i % 4}`,
    description: `Does thing number ${i} with a fairly ordinary description of what it does.`,
    inputSchema: { type: "object", properties: { path: { type: "string", description: "Where" }, depth: { type: "integer" } }, required: ["path"] },
  }));
}

describe("executeTool", () => {
  it("declarations when they fit and the context is below 70% used", () => {
    const { tool, style, omitted } = executeTool(catalog(12), { contextWindow: 200_000, usedTokens: 10_000 });
    expect(style).toBe("declarations");
    expect(omitted).toBe(0);
    expect(tool.name).toBe(EXECUTE_TOOL_NAME);
    expect(tool.inputSchema).toEqual(EXECUTE_INPUT_SCHEMA);
    expect(tool.description).toContain('"srv1_tool-1"(args: {');
    expect(tool.description).toContain('// ── server "srv0": 3 tools ──');
  });

  it("names only above 70% context use, even when the declarations would fit", () => {
    const { tool, style } = executeTool(catalog(12), { contextWindow: 200_000, usedTokens: 150_000 });
    expect(style).toBe("names");
    expect(tool.description).not.toContain("\"srv1_tool-1\"(args");
    expect(tool.description).toContain("srv0: srv0_tool-0, srv0_tool-4, srv0_tool-8");
    expect(tool.description).toContain("await search(query, limit?)");
  });

  it("names only when the declarations exceed the budget; cut in catalog order with a count when names do not fit", () => {
    const big = catalog(400);
    expect(executeTool(big).style).toBe("names");
    const cut = executeTool(big, { contextWindow: 20_000 });
    expect(cut.style).toBe("truncated");
    expect(cut.omitted).toBeGreaterThan(0);
    expect(cut.omitted).toBeLessThan(400);
    expect(cut.tool.description).toContain(`(${cut.omitted} more tools not listed: use search to find them)`);
    expect(cut.tool.description).toContain("srv0_tool-0");
    expect(cut.tool.description).not.toContain("srv3_tool-399");
  });

  it("every style stays within the budget", () => {
    for (const [tools, window] of [
      [catalog(12), {}],
      [catalog(12), { contextWindow: 200_000, usedTokens: 150_000 }],
      [catalog(400), {}],
      [catalog(400), { contextWindow: 20_000 }],
    ] as const) {
      const { tool, budget } = executeTool(tools, window);
      expect(budget).toBe(catalogBudget(window));
      expect(estimateToolTokens(tool)).toBeLessThanOrEqual(budget);
    }
  });

  it("declarations too long for any budget are not rendered in full; shorter ones are the same text", () => {
    const small = catalog(12);
    expect(boundedDeclarations(small, 1_000_000)).toBe(codeModeDeclarations(small));
    expect(boundedDeclarations(small, 500)).toBeUndefined();
    const big = catalog(2000);
    expect(codeModeDeclarations(big).length).toBeGreaterThan(MAX_DECLARATION_CHARS);
    expect(declarationsForBudget(big)).toBeNull();
    // Precomputed declarations are reused as they are: the window only picks the style.
    const declarations = declarationsForBudget(small);
    expect(executeTool(small, {}, declarations)).toEqual(executeTool(small));
    expect(executeTool(small, {}, null).style).toBe("names");
  });

  it("arguments: a script, and an optional whole-number timeout; nothing else", () => {
    expect(ExecuteArguments.safeParse({ code: "return 1", timeoutMs: 500 }).success).toBe(true);
    for (const bad of [{}, { code: "" }, { code: 1 }, { code: "x", timeoutMs: 0 }, { code: "x", timeoutMs: 1.5 }, { code: "x", extra: true }]) {
      expect(ExecuteArguments.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("execOutputText", () => {
  it("success: logs, then the result (strings as is, values as JSON)", () => {
    expect(execOutputText({ result: { top: [1, 2] }, logs: ["a", "b"], calls: [{ name: "x", ms: 3, isError: false }] })).toEqual({
      text: 'Logs:\na\nb\n\nResult:\n{\n  "top": [\n    1,\n    2\n  ]\n}',
      isError: false,
    });
    expect(execOutputText({ result: "plain", logs: [], calls: [] })).toEqual({ text: "Result:\nplain", isError: false });
    expect(execOutputText({ logs: [], calls: [] }).text).toBe("Result:\n(the script returned nothing)");
  });

  it("failure: the error, the top of its stack, and every call already made", () => {
    const { text, isError } = execOutputText({
      logs: ["before"],
      calls: [
        { name: "fs_write_file", ms: 12, isError: false },
        { name: "fs_read_file", ms: 4, isError: true },
      ],
      error: { message: "boom", stack: ["Error: boom", ...Array.from({ length: 20 }, (_, i) => `    at frame${i}`)].join("\n") },
    });
    expect(isError).toBe(true);
    expect(text).toContain("Logs:\nbefore\n\nThe script failed: boom\nError: boom\n    at frame0");
    expect(text).not.toContain("frame5");
    expect(text).toContain("Tool calls made before the error (their effects happened):\n- fs_write_file (12 ms)\n- fs_read_file (4 ms, failed)");
    expect(execOutputText({ logs: [], calls: [], error: { message: "early" } }).text).toBe("The script failed: early\n\nNo tool calls were made.");
  });
});
