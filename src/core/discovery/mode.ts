/**
 * Full list or search? `auto` hands the model every definition while they take at most
 * a threshold share of its context window (default 5%), and switches to the search
 * meta-tools beyond that. An unknown window counts as 200,000 tokens.
 */
export const DEFAULT_SEARCH_THRESHOLD = 0.05;
export const ASSUMED_CONTEXT_WINDOW = 200_000;

export type RequestedMode = "auto" | "full" | "search";
export type ToolsMode = "full" | "search";

export function chooseMode(requested: RequestedMode, fullTokens: number, contextWindow: number | undefined, threshold = DEFAULT_SEARCH_THRESHOLD): ToolsMode {
  if (requested !== "auto") return requested;
  const window = contextWindow ?? ASSUMED_CONTEXT_WINDOW;
  return fullTokens > window * threshold ? "search" : "full";
}
