/**
 * The AI SDK adapter's code mode at its network edge: the real `McpEdgeClient` over HTTP
 * against a tiny local server that implements the two routes code mode uses —
 * `GET /tools?mode=code` and the exec contract (`POST /exec` → `{result?, logs, calls,
 * error?}`) — and, for the whole loop, the AI SDK's `generateText` with the
 * OpenAI-compatible provider against the scripted model server. (Against the real Worker
 * and sandbox: test/e2e/agent.test.ts, once exec is served.)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { execResultToModelOutput, mcpEdgePrepareStep, mcpEdgeTools } from "../../src/ai/index.js";
import type { ExecResult, ToolList } from "../../src/api/schemas.js";
import { McpEdgeClient } from "../../src/client/index.js";
import { EXECUTE_INPUT_SCHEMA } from "../../src/core/codemode/execute-tool.js";
import { lastToolResult, startScriptedLlm, toolNames, type ScriptedLlm } from "../support/scripted-llm.js";

const DESCRIPTION = "Run a JavaScript script…\ndeclare const tools: {\n  srv_echo(args: { message: string; }): Promise<unknown>;\n};";

interface Received {
  method: string;
  url: string;
  body: unknown;
}

/** The exec contract, answered from the script's text (a stand-in sandbox at the network edge). */
function outcomeOf(code: string): ExecResult {
  if (code.includes("throw")) {
    return { logs: ["writing"], calls: [{ name: "srv_write", ms: 7, isError: false }], error: { message: "disk full", stack: "Error: disk full\n    at script:3:9" } };
  }
  return { result: { lines: 42 }, logs: ["counted"], calls: [{ name: "srv_read", ms: 3, isError: false }] };
}

let server: Server;
let baseUrl: string;
const received: Received[] = [];
let llm: ScriptedLlm;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as unknown) : undefined;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  received.push({ method: req.method!, url: req.url!, body });
  const json = (status: number, value: unknown): void => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  if (req.method === "GET" && req.url?.startsWith("/v1/sessions/ses_1/tools")) {
    const listing: ToolList = { mode: "code", tools: [{ name: "execute", server: "mcp-edge", tool: "execute", description: DESCRIPTION, inputSchema: EXECUTE_INPUT_SCHEMA }] };
    return json(200, listing);
  }
  if (req.method === "POST" && req.url === "/v1/sessions/ses_1/exec") {
    const code = (body as { code: string }).code;
    if (code.includes("hang")) return; // answered never: the caller's abort ends it
    return json(200, outcomeOf(code));
  }
  json(404, { error: { code: "notFound", message: "no route" } });
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  llm = await startScriptedLlm();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await llm.close();
});

beforeEach(() => {
  received.length = 0;
});

const execOptions = (abortSignal?: AbortSignal) => ({ toolCallId: "call_1", messages: [], context: {}, ...(abortSignal ? { abortSignal } : {}) });

describe("mcpEdgeTools in code mode", () => {
  it("lists in code mode and returns the execute tool alone, with the listed description and schema", async () => {
    const tools = await mcpEdgeTools(new McpEdgeClient({ baseUrl }), "ses_1", { mode: "code", contextWindow: 128_000, turn: "t1" });
    expect(Object.keys(tools)).toEqual(["execute"]);
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v1/sessions/ses_1/tools?mode=code&contextWindow=128000&turn=t1"]);
    expect(tools.execute!.description).toBe(DESCRIPTION);
    expect((tools.execute!.inputSchema as { jsonSchema: unknown }).jsonSchema).toEqual(EXECUTE_INPUT_SCHEMA);
  });

  it("execute sends the script and time limit to POST /exec; the model reads logs and result", async () => {
    const tools = await mcpEdgeTools(new McpEdgeClient({ baseUrl }), "ses_1", { mode: "code" });
    const output = (await tools.execute!.execute!({ code: "return count()", timeoutMs: 5000 }, execOptions())) as ExecResult;
    expect(received.at(-1)).toEqual({ method: "POST", url: "/v1/sessions/ses_1/exec", body: { code: "return count()", timeoutMs: 5000 } });
    expect(output).toEqual(outcomeOf("return count()"));
    expect(await tools.execute!.toModelOutput!({ toolCallId: "c", input: {}, output })).toEqual({ type: "text", value: 'Logs:\ncounted\n\nResult:\n{\n  "lines": 42\n}' });
  });

  it("a failed script is error text with the calls already made", async () => {
    const tools = await mcpEdgeTools(new McpEdgeClient({ baseUrl }), "ses_1", { mode: "code" });
    const output = (await tools.execute!.execute!({ code: "throw new Error()" }, execOptions())) as ExecResult;
    expect(received.at(-1)!.body).toEqual({ code: "throw new Error()" });
    expect(execResultToModelOutput(output)).toEqual({
      type: "error-text",
      value: "Logs:\nwriting\n\nThe script failed: disk full\nError: disk full\n    at script:3:9\n\nTool calls made before the error (their effects happened):\n- srv_write (7 ms)",
    });
  });

  it("no script: a failed run for the model, and no request", async () => {
    const tools = await mcpEdgeTools(new McpEdgeClient({ baseUrl }), "ses_1", { mode: "code" });
    received.length = 0;
    const output = (await tools.execute!.execute!({ timeoutMs: 5 }, execOptions())) as ExecResult;
    expect(output.error?.message).toContain("code");
    expect(received).toEqual([]);
  });

  it("the step's abort signal aborts the exec request", async () => {
    const tools = await mcpEdgeTools(new McpEdgeClient({ baseUrl }), "ses_1", { mode: "code" });
    const controller = new AbortController();
    const pending = tools.execute!.execute!({ code: "hang()" }, execOptions(controller.signal)) as Promise<ExecResult>;
    await expect.poll(() => received.some((r) => r.url.endsWith("/exec"))).toBe(true);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("prepareStep in code mode keeps execute (and your own tools) active", async () => {
    const prepareStep = mcpEdgePrepareStep(new McpEdgeClient({ baseUrl }), "ses_1", { mode: "code", turn: "t1", alwaysActive: ["mine"] });
    expect(await prepareStep({ stepNumber: 0 } as Parameters<typeof prepareStep>[0])).toEqual({ activeTools: ["execute", "mine"] });
    expect(received.map((r) => r.url)).toEqual(["/v1/sessions/ses_1/tools?mode=code&turn=t1"]);
  });

  it("a client without exec is refused in code mode", async () => {
    const http = new McpEdgeClient({ baseUrl });
    const partial = { listTools: http.listTools.bind(http), callTool: http.callTool.bind(http) };
    await expect(mcpEdgeTools(partial, "ses_1", { mode: "code" })).rejects.toThrow(/exec/);
  });
});

describe("an AI SDK loop in code mode (generateText + openai-compatible, scripted model)", () => {
  it("the model writes a script, execute runs it through exec, the model answers from its output", async () => {
    const script = "const r = await tools.srv_echo({ message: 'hi' });\nreturn { lines: 42 };";
    llm.script([
      () => ({ toolCalls: [{ name: "execute", arguments: { code: script } }] }),
      (request) => ({ text: `Done: ${lastToolResult(request)}` }),
    ]);
    const client = new McpEdgeClient({ baseUrl });
    const provider = createOpenAICompatible({ name: "llm", baseURL: llm.baseURL, apiKey: "test-key" });
    const result = await generateText({
      model: provider("scripted-model"),
      tools: await mcpEdgeTools(client, "ses_1", { mode: "code" }),
      stopWhen: stepCountIs(4),
      prompt: "How many lines?",
    });

    expect(toolNames(llm.requests[0])).toEqual(["execute"]);
    expect(llm.requests[0]!.tools![0]!.function.description).toBe(DESCRIPTION);
    expect(received.filter((r) => r.url.endsWith("/exec")).map((r) => r.body)).toEqual([{ code: script }]);
    expect(lastToolResult(llm.requests[1]!)).toBe('Logs:\ncounted\n\nResult:\n{\n  "lines": 42\n}');
    expect(result.text).toBe('Done: Logs:\ncounted\n\nResult:\n{\n  "lines": 42\n}');
  });
});
