/**
 * The AI SDK adapter at its edge: a client double that implements the two methods the
 * adapter uses and records the calls. What the tool set holds, what `execute` sends,
 * what the model is shown (`toModelOutput`), and what `prepareStep` activates.
 * (The whole loop with a real model provider and a real gateway: test/e2e/agent.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { callResultToModelOutput, mcpEdgePrepareStep, mcpEdgeTools, type McpEdgeToolsClient } from "../../src/ai/index.js";
import type { ApiTool, CallResult, ToolList } from "../../src/api/schemas.js";
import type { ListToolsOptions } from "../../src/client/index.js";

const tool = (name: string, server = "srv"): ApiTool => ({
  name,
  server,
  tool: name.replace(`${server}_`, ""),
  description: `does ${name}`,
  inputSchema: { type: "object", properties: { message: { type: "string" } } },
});

const META = ["search_tools", "get_tool_details", "call_tool", "search_servers", "enable_server", "disable_server"].map((n) => tool(n, "mcp-edge"));
const CATALOG = [tool("srv_echo"), tool("srv_add"), tool("srv_image")];

function fakeClient(answer: (query: ListToolsOptions) => ToolList) {
  const listings: Array<{ sessionId: string; query: ListToolsOptions; signal: AbortSignal | undefined }> = [];
  const calls: Array<{ sessionId: string; body: unknown; signal: AbortSignal | undefined }> = [];
  const result: CallResult = { output: "Echo: hi", attachments: [], metadata: {}, isError: false };
  const client: McpEdgeToolsClient = {
    async listTools(sessionId, query = {}, options = {}) {
      listings.push({ sessionId, query, signal: options.signal });
      return answer(query);
    },
    async callTool(sessionId, body, options = {}) {
      calls.push({ sessionId, body, signal: options.signal });
      return result;
    },
  };
  return { client, listings, calls, result };
}

const execOptions = (abortSignal?: AbortSignal) => ({ toolCallId: "call_1", messages: [], context: {}, ...(abortSignal ? { abortSignal } : {}) });

describe("callResultToModelOutput", () => {
  it("text alone is text", () => {
    expect(callResultToModelOutput({ output: "Echo: hi", attachments: [], metadata: { m: 1 }, isError: false })).toEqual({ type: "text", value: "Echo: hi" });
  });

  it("a tool error is error text", () => {
    expect(callResultToModelOutput({ output: "boom", attachments: [], metadata: {}, isError: true })).toEqual({ type: "error-text", value: "boom" });
  });

  it("attachments become file parts after the text: data URLs as base64 data, other URLs as URLs", () => {
    const output = callResultToModelOutput({
      output: "two files",
      attachments: [
        { mime: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" },
        { mime: "application/pdf", url: "https://files.example/a.pdf" },
      ],
      metadata: {},
      isError: false,
    });
    expect(output).toEqual({
      type: "content",
      value: [
        { type: "text", text: "two files" },
        { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } },
        { type: "file", mediaType: "application/pdf", data: { type: "url", url: new URL("https://files.example/a.pdf") } },
      ],
    });
  });

  it("attachments without text are only files", () => {
    const output = callResultToModelOutput({ output: "", attachments: [{ mime: "audio/wav", url: "data:audio/wav;name=x;base64,UklGRg==" }], metadata: {}, isError: false });
    expect(output).toEqual({ type: "content", value: [{ type: "file", mediaType: "audio/wav", data: { type: "data", data: "UklGRg==" } }] });
  });
});

describe("mcpEdgeTools", () => {
  it("full mode: one dynamic tool per listed tool, with its description, schema and origin", async () => {
    const { client, listings } = fakeClient(() => ({ mode: "full", tools: CATALOG }));
    const tools = await mcpEdgeTools(client, "ses_1", { mode: "full", turn: "t1", contextWindow: 1000, usedTokens: 5 });
    expect(Object.keys(tools)).toEqual(["srv_echo", "srv_add", "srv_image"]);
    expect(listings).toEqual([{ sessionId: "ses_1", query: { mode: "full", contextWindow: 1000, usedTokens: 5, turn: "t1" }, signal: undefined }]);
    const echo = tools.srv_echo!;
    expect(echo.type).toBe("dynamic");
    expect(echo.description).toBe("does srv_echo");
    expect(echo.metadata).toEqual({ server: "srv", tool: "echo" });
    expect((echo.inputSchema as { jsonSchema: unknown }).jsonSchema).toEqual(CATALOG[0]!.inputSchema);
  });

  it("execute calls tools/call with the name, arguments, turn and the step's abort signal", async () => {
    const { client, calls, result } = fakeClient(() => ({ mode: "full", tools: CATALOG }));
    const tools = await mcpEdgeTools(client, "ses_1", { turn: "t1" });
    const controller = new AbortController();
    expect(await tools.srv_echo!.execute!({ message: "hi" }, execOptions(controller.signal))).toBe(result);
    expect(calls).toEqual([{ sessionId: "ses_1", body: { name: "srv_echo", arguments: { message: "hi" }, turn: "t1" }, signal: controller.signal }]);
  });

  it("without a turn no turn is sent; input that is not an object becomes {}", async () => {
    const { client, calls } = fakeClient(() => ({ mode: "full", tools: CATALOG }));
    const tools = await mcpEdgeTools(client, "ses_1");
    await tools.srv_add!.execute!("not an object", execOptions());
    expect(calls[0]!.body).toEqual({ name: "srv_add", arguments: {} });
  });

  it("toModelOutput hands the model the normalized output", async () => {
    const { client } = fakeClient(() => ({ mode: "full", tools: CATALOG }));
    const tools = await mcpEdgeTools(client, "ses_1");
    const output = await tools.srv_echo!.toModelOutput!({ toolCallId: "c", input: {}, output: { output: "Echo: hi", attachments: [], metadata: {}, isError: false } });
    expect(output).toEqual({ type: "text", value: "Echo: hi" });
  });

  it("search mode: the meta-tools and loaded tools, plus every catalog tool (read without the turn)", async () => {
    const { client, listings } = fakeClient((query) => (query.mode === "full" ? { mode: "full", tools: CATALOG } : { mode: "search", tools: [...META, CATALOG[0]!] }));
    const controller = new AbortController();
    const tools = await mcpEdgeTools(client, "ses_1", { mode: "auto", turn: "t1", signal: controller.signal });
    expect(Object.keys(tools)).toEqual([...META.map((t) => t.name), "srv_echo", "srv_add", "srv_image"]);
    expect(listings.map((l) => [l.query, l.signal])).toEqual([
      [{ mode: "auto", turn: "t1" }, controller.signal],
      [{ mode: "full" }, controller.signal],
    ]);
  });
});

describe("mcpEdgePrepareStep", () => {
  it("re-lists the turn's tools before each step and activates exactly those (plus alwaysActive)", async () => {
    let loaded: ApiTool[] = [];
    const { client, listings } = fakeClient(() => ({ mode: "search", tools: [...META, ...loaded] }));
    const prepareStep = mcpEdgePrepareStep(client, "ses_1", { mode: "search", turn: "t1", contextWindow: 8000, alwaysActive: ["my_tool"] });
    const step = (n: number) => prepareStep({ stepNumber: n } as Parameters<typeof prepareStep>[0]);

    expect(await step(0)).toEqual({ activeTools: [...META.map((t) => t.name), "my_tool"] });
    loaded = [CATALOG[0]!];
    expect(await step(1)).toEqual({ activeTools: [...META.map((t) => t.name), "srv_echo", "my_tool"] });
    expect(listings.map((l) => l.query)).toEqual([
      { mode: "search", contextWindow: 8000, turn: "t1" },
      { mode: "search", contextWindow: 8000, turn: "t1" },
    ]);
  });
});
