/**
 * Which tools are loaded for the model in a turn of `search` mode. Hits of search_tools
 * are appended (at most 32 per turn, in the order found, so the tools array only grows
 * within a turn and the provider's prompt cache keeps its prefix); a new turn starts
 * with none; hits found under another catalog fingerprint (a list_changed since) are void.
 */
export const MAX_LOADED_PER_TURN = 32;

export interface TurnState {
  id: string;
  /** The mode the tools listing of this turn was served in. */
  mode: "full" | "search";
  /** The catalog fingerprint the loaded names were found under. */
  fingerprint: string;
  loaded: string[];
  /** Servers to disconnect when the next turn starts. */
  pendingDisable: string[];
}

export function startTurn(id: string, mode: TurnState["mode"], fingerprint: string): TurnState {
  return { id, mode, fingerprint, loaded: [], pendingDisable: [] };
}

/** The loaded names still valid under the current catalog. */
export function loadedTools(turn: TurnState | undefined, fingerprint: string): string[] {
  return turn && turn.fingerprint === fingerprint ? turn.loaded : [];
}

export function loadHits(turn: TurnState, names: readonly string[], fingerprint: string): TurnState {
  const loaded = turn.fingerprint === fingerprint ? [...turn.loaded] : [];
  for (const name of names) {
    if (loaded.length >= MAX_LOADED_PER_TURN) break;
    if (!loaded.includes(name)) loaded.push(name);
  }
  return { ...turn, fingerprint, loaded };
}
