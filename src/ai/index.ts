/**
 * `mcp-edge/ai`: a session's tools as an AI SDK `ToolSet`. Each tool's `execute` calls
 * mcp-edge's `tools/call` (with the turn and the step's abort signal) and its
 * `toModelOutput` hands the model text plus file parts for attachments.
 *
 * Search mode (progressive discovery): the model first sees the meta-tools
 * (`search_tools`, `call_tool`, …); what it finds is loaded for the turn on the server
 * and becomes callable on the next step. The AI SDK picks a step's tools with
 * `activeTools` from the set given to `generateText`/`streamText`, so in search mode the
 * set also holds every catalog tool, and {@link mcpEdgePrepareStep} re-lists the turn's
 * tools before each step (the first included) and activates exactly those.
 *
 * Code mode: one `execute` tool (its description declares the session's tools as
 * TypeScript); its `execute` runs the model's script with `POST /exec`, and the model
 * reads the script's output (result and logs; on failure the error and the calls made).
 */
import { jsonSchema, tool as aiSdkTool, type JSONSchema7, type PrepareStepFunction, type ToolSet } from "ai";
import type { ApiTool, CallResult, ExecResult } from "../api/schemas.js";
import type { ListToolsOptions, McpEdgeClient } from "../client/index.js";
import { callResultToModelOutput, execResultToModelOutput } from "./model-output.js";

export { callResultToModelOutput, execResultToModelOutput, type ModelOutput } from "./model-output.js";

/** What the adapter needs of a client (an `McpEdgeClient`, or anything shaped like it); `exec` for code mode. */
export type McpEdgeToolsClient = Pick<McpEdgeClient, "listTools" | "callTool"> & Partial<Pick<McpEdgeClient, "exec">>;

export interface McpEdgeToolsOptions {
  /** The turn this tool set serves: calls carry it (search mode's guard and loading apply to it). */
  turn?: string;
  /** Without a mode every tool is listed (`full`); `auto` picks by the context window; `code` gives the one `execute` tool. */
  mode?: "full" | "search" | "auto" | "code";
  contextWindow?: number;
  usedTokens?: number;
  /** Cancels the listing requests. */
  signal?: AbortSignal;
}

export interface McpEdgePrepareStepOptions extends McpEdgeToolsOptions {
  turn: string;
  /** Tools of your own in the same set that stay active on every step. */
  alwaysActive?: readonly string[];
}

function listQuery(options: McpEdgeToolsOptions): ListToolsOptions {
  const { mode, contextWindow, usedTokens, turn } = options;
  return {
    ...(mode !== undefined ? { mode } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(usedTokens !== undefined ? { usedTokens } : {}),
    ...(turn !== undefined ? { turn } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A dynamic tool (its types are only known at run time) that calls mcp-edge. */
function aiTool(client: McpEdgeToolsClient, sessionId: string, tool: ApiTool, turn: string | undefined) {
  return aiSdkTool({
    type: "dynamic",
    description: tool.description,
    // Catalog input schemas are JSON Schema objects (mcp-edge guarantees `type: "object"`).
    inputSchema: jsonSchema<unknown>(tool.inputSchema as JSONSchema7),
    metadata: { server: tool.server, tool: tool.tool },
    execute: (input, { abortSignal }): Promise<CallResult> =>
      client.callTool(
        sessionId,
        { name: tool.name, arguments: isRecord(input) ? input : {}, ...(turn !== undefined ? { turn } : {}) },
        abortSignal ? { signal: abortSignal } : {},
      ),
    toModelOutput: ({ output }) => callResultToModelOutput(output),
  });
}

/** Code mode's `execute`: the script goes to `POST /exec`; its output (never an exception for a failed script) is the tool's result. */
function executeTool(client: McpEdgeToolsClient, sessionId: string, tool: ApiTool) {
  const exec = client.exec?.bind(client);
  if (!exec) throw new TypeError("mcpEdgeTools: code mode needs a client with exec() (an McpEdgeClient)");
  return aiSdkTool({
    type: "dynamic",
    description: tool.description,
    inputSchema: jsonSchema<unknown>(tool.inputSchema as JSONSchema7),
    metadata: { server: tool.server, tool: tool.tool },
    execute: async (input, { abortSignal }): Promise<ExecResult> => {
      const code = isRecord(input) && typeof input.code === "string" ? input.code : "";
      // A script-less call is the model's mistake: told as a failed run, without a request.
      if (!code) return { logs: [], calls: [], error: { message: "execute needs a string argument code (the script)" } };
      const timeoutMs = isRecord(input) && typeof input.timeoutMs === "number" ? input.timeoutMs : undefined;
      return exec(sessionId, { code, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, abortSignal ? { signal: abortSignal } : {});
    },
    toModelOutput: ({ output }) => execResultToModelOutput(output),
  });
}

/**
 * The session's tools for a turn. In code mode: the `execute` tool alone. In full mode: every tool. In search mode: the
 * meta-tools and the tools loaded so far, plus (inactive until loaded) every catalog
 * tool; pass {@link mcpEdgePrepareStep} with the same options so each step sees only
 * the turn's tools.
 */
export async function mcpEdgeTools(client: McpEdgeToolsClient, sessionId: string, options: McpEdgeToolsOptions = {}): Promise<ToolSet> {
  const signal = options.signal ? { signal: options.signal } : {};
  const listing = await client.listTools(sessionId, listQuery(options), signal);
  const tools: ToolSet = {};
  if (listing.mode === "code") {
    for (const tool of listing.tools) tools[tool.name] = executeTool(client, sessionId, tool);
    return tools;
  }
  for (const tool of listing.tools) tools[tool.name] = aiTool(client, sessionId, tool, options.turn);
  if (listing.mode === "search") {
    // Listed without a turn: reads the catalog, leaves the turn's state alone.
    const catalog = await client.listTools(sessionId, { mode: "full" }, signal);
    for (const tool of catalog.tools) tools[tool.name] ??= aiTool(client, sessionId, tool, options.turn);
  }
  return tools;
}

/**
 * A `prepareStep` for `generateText`/`streamText`: before each step it re-lists the
 * turn's tools and makes exactly those active (plus `alwaysActive`), so tools found with
 * `search_tools` are callable on the next step. A loaded tool that was not in the set
 * (the catalog changed mid-turn) stays reachable through the `call_tool` meta-tool.
 */
export function mcpEdgePrepareStep<TOOLS extends ToolSet = ToolSet>(
  client: McpEdgeToolsClient,
  sessionId: string,
  options: McpEdgePrepareStepOptions,
): PrepareStepFunction<TOOLS> {
  const signal = options.signal ? { signal: options.signal } : {};
  return async () => {
    const listing = await client.listTools(sessionId, listQuery(options), signal);
    const names = [...listing.tools.map((tool) => tool.name), ...(options.alwaysActive ?? [])];
    return { activeTools: names as Array<keyof TOOLS & string> };
  };
}
