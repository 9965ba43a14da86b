/**
 * Code mode's QuickJS sandbox in plain Node, through the same runner and host the
 * Worker uses, with tool calls going to a real server-everything over Streamable HTTP
 * (the SDK's client). The shared suite (test/support/code-mode-cases.ts) also runs in
 * workerd against both sandboxes (test/worker/code-mode.test.ts).
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptHost } from "../../src/core/codemode/host.js";
import { DEFAULT_LIMITS, type CodeModeLimits } from "../../src/core/codemode/limits.js";
import { cutToBytes, OutputBudget } from "../../src/core/codemode/output.js";
import { runInQuickJS } from "../../src/core/codemode/quickjs-runner.js";
import { scriptOutcome } from "../../src/core/codemode/script-value.js";
import type { ToolCaller, ToolDirectoryEntry, ToolSearch } from "../../src/core/codemode/types.js";
import { normalizeToolResult, type RawToolResult } from "../../src/core/normalize.js";
import { buildSearchIndex, searchIndex, type SearchIndex } from "../../src/core/search/index.js";
import { freePort, Peer } from "../peers.js";
import { CODE_MODE_CASES, type CaseContext } from "../support/code-mode-cases.js";

const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const PREFIX = "everything_";
const LIMITS: CodeModeLimits = { ...DEFAULT_LIMITS, maxCalls: 20 };

let quickjs: QuickJSWASMModule;
let everything: Peer;
let everythingUrl: string;
let client: Client;
let directory: ToolDirectoryEntry[];
let schemas: Map<string, Record<string, unknown>>;
let index: SearchIndex;

/** The session's search, from the same pure index (BM25F over the catalog). */
const search: ToolSearch = async (query, limit) =>
  searchIndex(index, query, { limit }).map(({ id }) => {
    const entry = directory.find((t) => t.name === id)!;
    return { ...entry, inputSchema: schemas.get(id)! };
  });

/** Catalog names as the session makes them (`everything_<tool>`), calls to the real server. */
const caller: ToolCaller = {
  async call(name, args, signal) {
    const result = (await client.callTool({ name: name.slice(PREFIX.length), arguments: args }, undefined, { signal })) as RawToolResult;
    const normalized = normalizeToolResult(result);
    return result.structuredContent !== undefined ? { ...normalized, structuredContent: result.structuredContent } : normalized;
  },
};

/** Set when a run could not free what it left (as the Worker does, the next run gets a fresh module). */
let broken = false;

async function exec(code: string, timeoutMs?: number, options: { now?: () => number; limits?: Partial<CodeModeLimits> } = {}) {
  if (broken) {
    quickjs = await newQuickJSWASMModuleFromVariant(variant);
    broken = false;
  }
  const host = new ScriptHost({ caller, directory, search, limits: { ...LIMITS, ...options.limits, ...(timeoutMs ? { timeoutMs } : {}) } });
  return runInQuickJS(quickjs, code, host, { ...(options.now ? { now: options.now } : {}), onModuleBroken: () => (broken = true) });
}

beforeAll(async () => {
  const port = await freePort();
  everything = new Peer({ args: [EVERYTHING, "streamableHttp"], env: { PORT: String(port) }, ports: [port] });
  everythingUrl = `http://127.0.0.1:${port}/mcp`;
  [quickjs] = await Promise.all([newQuickJSWASMModuleFromVariant(variant), everything.start()]);
  client = new Client({ name: "code-mode-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(everythingUrl)));
  const { tools } = await client.listTools();
  directory = tools.map((t) => ({ name: `${PREFIX}${t.name}`, server: "everything", description: t.description ?? "" }));
  schemas = new Map(tools.map((t) => [`${PREFIX}${t.name}`, t.inputSchema as Record<string, unknown>]));
  index = buildSearchIndex(tools.map((t) => ({ id: `${PREFIX}${t.name}`, server: "everything", name: t.name, description: t.description ?? "", inputSchema: t.inputSchema })));
}, 30_000);

afterAll(async () => {
  await client?.close();
  await everything?.stop();
});

describe("the shared suite on QuickJS (Node)", () => {
  const ctx = (): CaseContext => ({ exec: (code, timeoutMs) => exec(code, timeoutMs), reachableUrl: everythingUrl, maxCalls: LIMITS.maxCalls, maxOutputBytes: LIMITS.maxOutputBytes });
  for (const testCase of CODE_MODE_CASES) it(testCase.name, () => testCase.run(ctx()), 90_000);
});

describe("QuickJS specifics", () => {
  it("with a clock that stands still (as in workerd), while(true){} is stopped by the interrupt count", async () => {
    const out = await exec(`while (true) {}`, 500, { now: () => 0 });
    expect(out.error?.message).toBe("the script ran out of time (500 ms)");
  });

  it("a caller that goes away cancels the run", async () => {
    const controller = new AbortController();
    const host = new ScriptHost({ caller, directory, limits: LIMITS, signal: controller.signal });
    const running = runInQuickJS(quickjs, `await tools.everything_echo({ message: "one" }); while (true) {}`, host);
    controller.abort();
    const out = await running;
    expect(out.error?.message).toMatch(/cancelled|ended/);
  });

  it("a smaller memory limit stops a smaller bomb; the module stays usable for the next run", async () => {
    const bomb = await exec(`const a = []; for (;;) a.push({ n: a.length });`, 20_000, { limits: { memoryBytes: 8 * 1024 * 1024 } });
    expect(bomb.error?.message).toMatch(/out of memory/);
    const next = await exec(`return 1 + 1;`);
    expect(next.result).toBe(2);
  }, 30_000);

  it("an endless chain of microtasks is stopped at the deadline, and a later run still works", async () => {
    const out = await exec(`const f = async (n) => { await null; return f(n + 1); }; await f(0);`, 1_000);
    expect(out.error?.message).toBe("the script ran out of time (1000 ms)");
    expect((await exec(`return "alive";`)).result).toBe("alive");
  }, 30_000);

  it("deep recursion hits the stack limit as a catchable error", async () => {
    const out = await exec(`const f = (n) => f(n + 1) + 1; try { f(0) } catch (e) { return e.name + ": " + e.message }`);
    expect(out.result).toBe("InternalError: stack overflow");
  });
});

describe("output budget", () => {
  it("cuts on UTF-8 bytes without splitting a character", () => {
    expect(cutToBytes("héllo", 2)).toBe("h");
    expect(cutToBytes("héllo", 3)).toBe("hé");
    expect(cutToBytes("a😀b", 4)).toBe("a");
    expect(cutToBytes("a😀b", 5)).toBe("a😀");
  });

  it("gives the result priority over the logs, and counts what it left out", () => {
    const budget = new OutputBudget(12);
    budget.log("12345");
    budget.log("67890");
    budget.log("more");
    expect(budget.finish(JSON.stringify("abc"))).toEqual({ result: "abc", logs: ["12345", "67", "[truncated: 2 log line(s) cut or left out]"] });
  });

  it("a result over the budget becomes its JSON cut with a marker", () => {
    const out = new OutputBudget(8).finish(JSON.stringify({ long: "x".repeat(50) }));
    expect(out.result).toBe('{"long":[truncated: 53 more bytes of the result]');
    expect(out.logs).toEqual([]);
  });
});

describe("what a script sees of a tool result", () => {
  const base = { attachments: [], metadata: {} };
  it("structuredContent when present, else the text (parsed when it is a JSON object or array)", () => {
    expect(scriptOutcome({ ...base, output: "ignored", isError: false, structuredContent: { t: 1 } })).toEqual({ ok: true, value: { t: 1 } });
    expect(scriptOutcome({ ...base, output: ' {"a":[1]} ', isError: false })).toEqual({ ok: true, value: { a: [1] } });
    expect(scriptOutcome({ ...base, output: "[not json", isError: false })).toEqual({ ok: true, value: "[not json" });
    expect(scriptOutcome({ ...base, output: "42", isError: false })).toEqual({ ok: true, value: "42" });
  });

  it("isError is a ToolError with the tool's text", () => {
    expect(scriptOutcome({ ...base, output: "bad input", isError: true })).toEqual({ ok: false, name: "ToolError", message: "bad input" });
  });
});
