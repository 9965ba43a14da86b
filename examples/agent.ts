/**
 * An agent loop on mcp-edge with the Vercel AI SDK: open a session with an MCP server,
 * hand the session's tools to `streamText`, let the model call them, print its answer.
 *
 *   MCP_EDGE_URL=http://127.0.0.1:8787 OPENAI_BASE_URL=https://…/v1 OPENAI_API_KEY=… MODEL=… \
 *     node examples/agent.ts [--mode full|search|code] [--server NAME=URL]… [--json] "what to do"
 *
 * `--mode search` serves the tools by progressive discovery: the model starts with the
 * meta-tools (search_tools, call_tool, …), and what it finds is switched on for the next
 * step by `mcpEdgePrepareStep`. `--mode code` gives the model one `execute` tool: it writes a
 * script against the typed declarations and mcp-edge's sandbox runs it. `--json` prints one JSON summary instead of the streamed text.
 * Runs on Node 22 as is (type stripping); imports the package the way your code would.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { stepCountIs, streamText } from "ai";
import { mcpEdgePrepareStep, mcpEdgeTools } from "mcp-edge/ai";
import { McpEdgeClient } from "mcp-edge/client";

/** Model steps per turn: each tool round trip is one. */
const MAX_STEPS = 8;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mode: { type: "string", default: "full" },
    server: { type: "string", multiple: true, default: [] },
    json: { type: "boolean", default: false },
  },
});
const mode = values.mode === "search" || values.mode === "code" ? values.mode : "full";
const prompt = positionals.join(" ") || "Say hello through the echo tool.";

const client = new McpEdgeClient({ baseUrl: process.env.MCP_EDGE_URL ?? "http://127.0.0.1:8787" });
const provider = createOpenAICompatible({
  name: "llm",
  baseURL: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
  apiKey: process.env.OPENAI_API_KEY ?? "",
  includeUsage: true,
});

const servers = Object.fromEntries(
  values.server.map((entry) => {
    const at = entry.indexOf("=");
    return [entry.slice(0, at), { type: "remote" as const, url: entry.slice(at + 1) }];
  }),
);
const session = await client.createSession({ servers });

try {
  // One turn: the tools (and in search mode what the model loads) belong to it.
  const turn = `turn_${randomUUID()}`;
  const tools = await mcpEdgeTools(client, session.id, { turn, mode });
  const result = streamText({
    model: provider(process.env.MODEL ?? "gpt-4o-mini"),
    tools,
    prepareStep: mcpEdgePrepareStep(client, session.id, { turn, mode }),
    stopWhen: stepCountIs(MAX_STEPS),
    instructions: (await client.instructions(session.id)).instructions || undefined,
    prompt,
  });

  if (!values.json) {
    for await (const text of result.textStream) process.stdout.write(text);
    process.stdout.write("\n");
  } else {
    const steps = (await result.steps).map((step) => ({
      toolCalls: step.toolCalls.map((call) => ({ name: call.toolName, input: call.input })),
      toolResults: step.toolResults.map((r) => ({ name: r.toolName, output: r.output })),
    }));
    console.log(JSON.stringify({ session: session.id, mode, text: await result.text, steps }));
  }
} finally {
  await client.deleteSession(session.id);
}
