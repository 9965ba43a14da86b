/**
 * Token estimates for tool definitions: four characters of their JSON per token, the
 * usual rough rule. Only ratios and budgets depend on it, never correctness.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** What a provider sends for a tool: its name, description and input schema. */
export function estimateToolTokens(tool: { name: string; description?: string; inputSchema?: unknown }): number {
  return estimateTokens(JSON.stringify({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema ?? {} }));
}

export function estimateToolsTokens(tools: ReadonlyArray<{ name: string; description?: string; inputSchema?: unknown }>): number {
  let total = 0;
  for (const tool of tools) total += estimateToolTokens(tool);
  return total;
}
