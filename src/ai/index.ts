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
 */
import { jsonSchema, tool as aiSdkTool, type JSONSchema7, type PrepareStepFunction, type ToolSet } from "ai";
import type { ApiTool, CallResult } from "../api/schemas.js";
import type { ListToolsOptions, McpEdgeClient } from "../client/index.js";
import { callResultToModelOutput } from "./model-output.js";

export { callResultToModelOutput, type ModelOutput } from "./model-output.js";

/** What the adapter needs of a client (an `McpEdgeClient`, or anything shaped like it). */
export type McpEdgeToolsClient = Pick<McpEdgeClient, "listTools" | "callTool">;

export interface McpEdgeToolsOptions {
  /** The turn this tool set serves: calls carry it (search mode's guard and loading apply to it). */
  turn?: string;
  /** Without a mode every tool is listed (`full`); `auto` picks by the context window. */
  mode?: "full" | "search" | "auto";
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

/**
 * The session's tools for a turn. In full mode: every tool. In search mode: the
 * meta-tools and the tools loaded so far, plus (inactive until loaded) every catalog
 * tool; pass {@link mcpEdgePrepareStep} with the same options so each step sees only
 * the turn's tools.
 */
export async function mcpEdgeTools(client: McpEdgeToolsClient, sessionId: string, options: McpEdgeToolsOptions = {}): Promise<ToolSet> {
  const signal = options.signal ? { signal: options.signal } : {};
  const listing = await client.listTools(sessionId, listQuery(options), signal);
  const tools: ToolSet = {};
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
