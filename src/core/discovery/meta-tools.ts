/**
 * The meta-tools of `search` mode. Their names are reserved: an MCP tool that would get
 * one of them keeps a deterministic alternative name instead (ours win).
 */
import type { CachedTool } from "../catalog.js";
import { renderCatalog, type CatalogEntry, type CatalogText, type CatalogWindow } from "./catalog-text.js";
import { estimateToolsTokens } from "./tokens.js";

export const SEARCH_DEFAULT_LIMIT = 8;
export const SEARCH_MAX_LIMIT = 20;

export const META_TOOL_NAMES = ["search_tools", "get_tool_details", "call_tool", "search_servers", "enable_server", "disable_server"] as const;
export type MetaToolName = (typeof META_TOOL_NAMES)[number];

export function isMetaTool(name: string): name is MetaToolName {
  return (META_TOOL_NAMES as readonly string[]).includes(name);
}

/** The definitions; `search_tools`' description ends with the catalog text. */
export function metaToolDefinitions(catalogText: string): CachedTool[] {
  return [
    {
      name: "search_tools",
      description:
        "Search the available tools by what you want to do. Returns ranked tool names with short descriptions (no schemas); " +
        "the tools found become available to call directly in this turn, or call them through call_tool.\n\n" +
        catalogText,
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string", description: "What you want to do, in words" },
          limit: { type: "integer", minimum: 1, maximum: SEARCH_MAX_LIMIT, description: `How many results (default ${SEARCH_DEFAULT_LIMIT})` },
        },
        required: ["query"],
      },
    },
    {
      name: "get_tool_details",
      description: "Get the full definition (description and input schema) of one tool found with search_tools.",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    {
      name: "call_tool",
      description: "Call any available tool by name with its arguments (see get_tool_details for the schema).",
      inputSchema: {
        type: "object",
        properties: { name: { type: "string" }, arguments: { type: "object", description: "The tool's arguments" } },
        required: ["name"],
      },
    },
    {
      name: "search_servers",
      description: "Search the MCP servers that are configured but not connected, to enable one whose tools you need.",
      inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
    {
      name: "enable_server",
      description: "Connect a configured MCP server so its tools can be searched and called.",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    {
      name: "disable_server",
      description: "Disconnect an MCP server you no longer need (takes effect at the next turn).",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
  ];
}

/**
 * The meta-tools of a search-mode listing, with the catalog sized so that the meta-tools
 * and the catalog together stay within the catalog budget.
 */
export function searchModeMetaTools(entries: readonly CatalogEntry[], window: CatalogWindow = {}): { tools: CachedTool[]; catalog: CatalogText } {
  const reserve = estimateToolsTokens(metaToolDefinitions(""));
  const catalog = renderCatalog(entries, window, reserve);
  return { tools: metaToolDefinitions(catalog.text), catalog };
}
