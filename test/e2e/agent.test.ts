/**
 * End to end, as a user runs it: the built package (`mcp-edge/client`, `mcp-edge/ai`)
 * imported by name, the example agent (`examples/agent.ts`, AI SDK `streamText` with
 * `@ai-sdk/openai-compatible`) run as its own Node process against the built Worker on
 * workerd, a real server-everything, and a scripted OpenAI-compatible model that streams
 * real SSE chunks.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpEdgeApiError, McpEdgeClient } from "../../src/client/index.js";
import { ROUTES } from "../../src/api/routes.js";
import { META_TOOL_NAMES } from "../../src/core/discovery/meta-tools.js";
import { freePort, Peer } from "../peers.js";
import { lastToolResult, startScriptedLlm, toolNames, type ScriptedLlm } from "../support/scripted-llm.js";
import { buildWorker, startGateway, type Gateway } from "./gateway.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const run = promisify(execFile);

let gateway: Gateway;
let everything: Peer;
let everythingUrl: string;
let llm: ScriptedLlm;
let client: McpEdgeClient;

beforeAll(async () => {
  const port = await freePort();
  everything = new Peer({ args: [EVERYTHING, "streamableHttp"], env: { PORT: String(port) }, ports: [port] });
  everythingUrl = `http://127.0.0.1:${port}/mcp`;
  const [script] = await Promise.all([buildWorker("dist-e2e-agent"), run("npm", ["run", "--silent", "build:pkg"], { cwd: root }), everything.start()]);
  [gateway, llm] = await Promise.all([startGateway(script, {}), startScriptedLlm()]);
  client = new McpEdgeClient({ baseUrl: gateway.url });
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), llm?.close(), everything?.stop()]);
});

interface AgentReport {
  session: string;
  mode: string;
  text: string;
  steps: Array<{ toolCalls: Array<{ name: string; input: unknown }>; toolResults: Array<{ name: string; output: { output: string; isError: boolean } & Record<string, unknown> }> }>;
}

/** Code mode's loop needs the sandbox route (`POST /exec`, issue 7); it runs as soon as the route table has it. */
const EXEC_SERVED = ROUTES.some((route) => route.method === "post" && route.path === "/v1/sessions/{id}/exec");

/** Runs the example agent and returns what it printed. */
async function runExample(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ["examples/agent.ts", "--server", `everything=${everythingUrl}`, ...args], {
    cwd: root,
    env: { ...process.env, MCP_EDGE_URL: gateway.url, OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: "test-key", MODEL: "scripted-model" },
    timeout: 45_000,
  });
  return stdout;
}

/** Runs the example agent with `--json` and returns its summary. */
async function runAgent(args: string[]): Promise<AgentReport> {
  const stdout = await runExample(["--json", ...args]);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as AgentReport;
}

describe("the built package", () => {
  it("imports by package name and talks to a real gateway with typed errors", async () => {
    const { stdout } = await run(process.execPath, [`${root}test/fixtures/package-consumer/run.mjs`, gateway.url], { cwd: root });
    const report = JSON.parse(stdout) as { health: unknown; error: Record<string, unknown>; ai: string[] };
    expect(report.health).toEqual({ ok: true, version: expect.any(String) });
    expect(report.error).toEqual({ instance: true, branded: true, status: 404, code: "sessionNotFound", message: "session not found" });
    expect(report.ai).toEqual(expect.arrayContaining(["callResultToModelOutput", "mcpEdgePrepareStep", "mcpEdgeTools"]));
  });

  it("type-checks a user's code against its declarations", async () => {
    await expect(run(`${root}node_modules/.bin/tsc`, ["-p", "test/fixtures/package-consumer/tsconfig.json"], { cwd: root })).resolves.toBeDefined();
  });

  it("the client bundle needs nothing at run time but fetch", () => {
    const bundle = readFileSync(`${root}dist-pkg/client/index.js`, "utf8");
    expect(bundle).not.toMatch(/^\s*import\s/m);
    expect(bundle).not.toMatch(/\brequire\(|\bimport\(/);
  });
});

describe("the client over real HTTP", () => {
  it("an aborted signal aborts the request", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client.health({ signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("a tool call and a typed error", async () => {
    const session = await client.createSession({ servers: { everything: { type: "remote", url: everythingUrl } } });
    try {
      expect(session.servers.everything?.status).toBe("connected");
      expect(await client.callTool(session.id, { name: "everything_echo", arguments: { message: "over http" } })).toEqual({
        output: "Echo: over http",
        attachments: [],
        metadata: {},
        isError: false,
      });
      const error = await client.callTool(session.id, { name: "everything_nope" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpEdgeApiError);
      expect(error).toMatchObject({ status: 404, code: "toolNotFound", data: { name: "everything_nope" } });
    } finally {
      await client.deleteSession(session.id);
    }
  });
});

describe("the example agent (AI SDK streamText + openai-compatible)", () => {
  it("full mode: the model calls everything_echo, gets its output and answers with it", async () => {
    llm.script([
      () => ({ toolCalls: [{ name: "everything_echo", arguments: { message: "hello from the agent" } }] }),
      (request) => ({ text: `The server said: ${lastToolResult(request)}` }),
    ]);
    const report = await runAgent(["--mode", "full", "Echo hello"]);

    expect(report.text).toBe("The server said: Echo: hello from the agent");
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests.every((r) => r.stream === true)).toBe(true);
    const offered = toolNames(llm.requests[0]);
    expect(offered).toContain("everything_echo");
    expect(offered).not.toContain("search_tools");
    expect(lastToolResult(llm.requests[1]!)).toBe("Echo: hello from the agent");
    expect(report.steps[0]!.toolCalls).toEqual([{ name: "everything_echo", input: { message: "hello from the agent" } }]);
    expect(report.steps[0]!.toolResults[0]!.output).toMatchObject({ output: "Echo: hello from the agent", isError: false });
    // The example closes its session.
    await expect(client.getSession(report.session)).rejects.toMatchObject({ status: 404, code: "sessionNotFound" });
  });

  it("without --json it streams the model's text to stdout", async () => {
    llm.script([
      () => ({ toolCalls: [{ name: "everything_echo", arguments: { message: "streamed" } }] }),
      (request) => ({ text: `The server said: ${lastToolResult(request)}` }),
    ]);
    expect(await runExample(["Echo streamed"])).toBe("The server said: Echo: streamed\n");
  });

  it.skipIf(!EXEC_SERVED)("code mode: the model writes one script, the sandbox runs it against the real server, the model answers from its output", async () => {
    const script = [
      'const weather = await tools["everything_get-structured-content"]({ location: "Chicago" });',
      'await tools.everything_echo({ message: "from a script" });',
      'console.log("two calls made");',
      "return { city: \"Chicago\", keys: Object.keys(weather).sort() };",
    ].join("\n");
    llm.script([
      () => ({ toolCalls: [{ name: "execute", arguments: { code: script } }] }),
      (request) => ({ text: `Script output: ${lastToolResult(request)}` }),
    ]);
    const report = await runAgent(["--mode", "code", "What is the weather in Chicago?"]);

    expect(toolNames(llm.requests[0])).toEqual(["execute"]);
    expect(llm.requests[0]!.tools![0]!.function.description).toContain('"everything_get-structured-content"(args: {');
    const run = report.steps[0]!.toolResults[0]!.output as unknown as { result: unknown; logs: string[]; calls: Array<{ name: string; isError: boolean }>; error?: unknown };
    expect(run.error).toBeUndefined();
    expect(run.logs).toEqual(["two calls made"]);
    expect(run.calls.map((c) => [c.name, c.isError])).toEqual([
      ["everything_get-structured-content", false],
      ["everything_echo", false],
    ]);
    expect(run.result).toEqual({ city: "Chicago", keys: ["conditions", "humidity", "temperature"] });
    expect(lastToolResult(llm.requests[1]!)).toContain("Logs:\ntwo calls made");
    expect(report.text).toContain('"city": "Chicago"');
  });

  it("search mode: the model searches, and the tool it found is offered and called on the next step", async () => {
    llm.script([
      () => ({ toolCalls: [{ name: "search_tools", arguments: { query: "echo a message back" } }] }),
      () => ({ toolCalls: [{ name: "everything_echo", arguments: { message: "found by search" } }] }),
      (request) => ({ text: `The server said: ${lastToolResult(request)}` }),
    ]);
    const report = await runAgent(["--mode", "search", "Echo something"]);

    expect(llm.requests).toHaveLength(3);
    // Step 1: only the meta-tools, although the tool set holds every catalog tool.
    expect(toolNames(llm.requests[0])).toEqual([...META_TOOL_NAMES].sort());
    // Step 2: the meta-tools plus exactly what search_tools found (loaded for the turn).
    const search = report.steps[0]!.toolResults[0]!.output;
    expect(search.isError).toBe(false);
    const found = (JSON.parse(search.output) as Array<{ name: string }>).map((r) => r.name);
    expect(found).toContain("everything_echo");
    expect(toolNames(llm.requests[1])).toEqual([...META_TOOL_NAMES, ...found].sort());
    // Step 3: the loaded tool ran (the guard let it through) and the model answered with its output.
    expect(report.steps[1]!.toolResults[0]!.output).toMatchObject({ output: "Echo: found by search", isError: false });
    expect(report.text).toBe("The server said: Echo: found by search");
  });
});
