/**
 * Progressive discovery for one session: the tools listing in `full`, `search` or `code`
 * mode, the meta-tools (search_tools, get_tool_details, call_tool, search_servers,
 * enable_server, disable_server), per-turn loading of search hits and the guard on
 * tools that were not loaded, and code mode's `execute` tool (its declarations, and its
 * calls handed to the host's sandbox). The session hands it a narrow host interface; the
 * pure rules live in `src/core/discovery/` and `src/core/codemode/`, the ranking in
 * `src/core/search/`.
 */
import type { ApiTool, Catalog } from "../src/core/catalog.js";
import type { CatalogWindow } from "../src/core/discovery/catalog-text.js";
import { isMetaTool, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, searchModeMetaTools, type MetaToolName } from "../src/core/discovery/meta-tools.js";
import { chooseMode, type RequestedMode, type ToolsMode } from "../src/core/discovery/mode.js";
import { estimateToolsTokens } from "../src/core/discovery/tokens.js";
import { loadedTools, loadHits, startTurn, type TurnState } from "../src/core/discovery/turns.js";
import type { ServerStatus } from "../src/core/connection-state.js";
import { execOutputText, type ExecOutcome } from "../src/core/codemode/exec-output.js";
import { declarationsForBudget, EXECUTE_TOOL_NAME, ExecuteArguments, executeTool } from "../src/core/codemode/execute-tool.js";
import { McpEdgeError, messageOf } from "../src/core/errors.js";
import type { NormalizedResult } from "../src/core/normalize.js";
import { buildSearchIndex, deserializeSearchIndex, MAX_SEARCH_QUERY_CHARS, searchIndex, serializeSearchIndex, type SearchIndex } from "../src/core/search/index.js";
import { withinKvDeadline } from "./catalog-cache.js";

export const META_SERVER = "mcp-edge";

export interface ListToolsRequest extends CatalogWindow {
  mode: RequestedMode | "code";
  turn?: string;
}

/** What a listing was served as: every tool, the search meta-tools, or code mode's `execute`. */
export type ListedMode = ToolsMode | "code";

export interface SearchResult {
  name: string;
  server: string;
  description: string;
  score: number;
}

/** One hit of `search(query, limit?)` inside the code-mode sandbox: with the input schema a script needs to call the tool. */
export interface ScriptSearchResult {
  name: string;
  server: string;
  description: string;
  inputSchema?: Record<string, unknown>;
}

export interface DormantServer {
  name: string;
  status: ServerStatus["status"];
  description?: string;
}

/** What discovery needs from its session. */
export interface DiscoveryHost {
  catalog(): Promise<Catalog>;
  /** Server descriptions for the search index (name → description). */
  serverDescriptions(): Record<string, string>;
  threshold: number;
  turn: TurnState | undefined;
  saveTurn(turn: TurnState): Promise<void>;
  dormantServers(): DormantServer[];
  enableServer(name: string): Promise<ServerStatus>;
  disableServer(name: string): Promise<ServerStatus>;
  /** Calls a catalog tool, no discovery guard. */
  callCatalogTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<NormalizedResult>;
  /**
   * Runs a code-mode script in the sandbox (the path of `POST /exec`). The seam for code
   * mode's `execute` tool called through `tools/call`; without it `execute` answers a tool error.
   */
  runCode?(request: ExecuteArguments, signal?: AbortSignal): Promise<ExecOutcome>;
  kv: KVNamespace;
  log(message: string, data?: Record<string, unknown>): void;
}

const SEARCH_INDEX_TTL_SECONDS = 24 * 3600;

export class Discovery {
  private index: { fingerprint: string; index: SearchIndex } | undefined;
  private fullTokens: { fingerprint: string; tokens: number } | undefined;
  /** Code mode's declarations for the current catalog (null: too long for any budget). */
  private declarations: { fingerprint: string; text: string | null } | undefined;
  private warned = new Set<string>();

  constructor(private readonly host: DiscoveryHost) {}

  async listTools(request: ListToolsRequest): Promise<{ mode: ListedMode; tools: ApiTool[] }> {
    if (request.turn !== undefined) await this.leavePreviousTurn(request.turn);
    const catalog = await this.host.catalog();
    this.warnDisplaced(catalog);
    if (request.mode === "code") {
      // A script may call any allowed tool, so the turn is recorded unguarded (as full mode is).
      if (request.turn !== undefined) await this.recordTurn(request.turn, "full", catalog.fingerprint);
      return { mode: "code", tools: [this.executeToolFor(catalog, request)] };
    }
    const mode = chooseMode(request.mode, this.tokensOf(catalog), request.contextWindow, this.host.threshold);
    if (request.turn !== undefined) await this.recordTurn(request.turn, mode, catalog.fingerprint);
    if (mode === "full") return { mode, tools: catalog.tools };
    const { tools: metaTools } = searchModeMetaTools(
      catalog.tools.map((t) => ({ name: t.name, server: t.server, description: t.description })),
      request,
    );
    const metas: ApiTool[] = metaTools.map((t) => ({
      name: t.name,
      server: META_SERVER,
      tool: t.name,
      description: t.description ?? "",
      inputSchema: t.inputSchema,
    }));
    const turn = request.turn !== undefined && this.host.turn?.id === request.turn ? this.host.turn : undefined;
    const loaded = loadedTools(turn, catalog.fingerprint).flatMap((name) => {
      const tool = catalog.byName.get(name);
      return tool ? [tool] : [];
    });
    return { mode, tools: [...metas, ...loaded] };
  }

  /** When turn `id` is new: servers whose disabling waited for the turn to end are disconnected now. */
  private async leavePreviousTurn(id: string): Promise<void> {
    const previous = this.host.turn;
    if (!previous || previous.id === id) return;
    for (const server of previous.pendingDisable) {
      await this.host.disableServer(server).catch((e: unknown) => this.host.log("disabling a server at turn start failed", { server, reason: messageOf(e) }));
    }
    await this.host.saveTurn({ ...previous, pendingDisable: [] });
  }

  /** Makes turn `id` the current one (new turns start with nothing loaded). */
  private async recordTurn(id: string, mode: ToolsMode, fingerprint: string): Promise<TurnState> {
    const current = this.host.turn;
    if (current?.id === id) {
      if (current.mode === mode) return current;
      const updated = { ...current, mode };
      await this.host.saveTurn(updated);
      return updated;
    }
    const fresh = startTurn(id, mode, fingerprint);
    await this.host.saveTurn(fresh);
    return fresh;
  }

  async search(query: string, limit = SEARCH_DEFAULT_LIMIT, turnId?: string): Promise<{ results: SearchResult[]; loaded?: string[] }> {
    if (turnId !== undefined) await this.leavePreviousTurn(turnId);
    const catalog = await this.host.catalog();
    const index = await this.indexFor(catalog);
    const hits = searchIndex(index, query, {
      limit: Math.min(Math.max(1, limit), SEARCH_MAX_LIMIT),
      filter: (id) => catalog.targets.has(id),
    });
    const results = hits.flatMap(({ id, score }) => {
      const tool = catalog.byName.get(id);
      return tool ? [{ name: tool.name, server: tool.server, description: tool.description, score: Math.round(score * 1000) / 1000 }] : [];
    });
    if (turnId === undefined) return { results };
    const current = this.host.turn?.id === turnId ? this.host.turn : await this.recordTurn(turnId, "search", catalog.fingerprint);
    const turn = loadHits(current, results.map((r) => r.name), catalog.fingerprint);
    await this.host.saveTurn(turn);
    return { results, loaded: turn.loaded };
  }

  /**
   * `search(query, limit?)` for code-mode scripts (the sandbox calls this): the same
   * ranking as search_tools, with each tool's input schema; no turn, so nothing is loaded.
   */
  async searchForScript(query: string, limit = SEARCH_DEFAULT_LIMIT): Promise<ScriptSearchResult[]> {
    const { results } = await this.search(query, limit);
    const catalog = await this.host.catalog();
    return results.map(({ name, server, description }) => {
      const inputSchema = catalog.byName.get(name)?.inputSchema;
      return { name, server, description, ...(inputSchema ? { inputSchema } : {}) };
    });
  }

  /**
   * The guard: in a turn served in search mode, a tool that was not loaded is refused
   * with an error the model can act on. Returns undefined when the call may go ahead.
   */
  async guard(name: string, turnId: string | undefined): Promise<NormalizedResult | undefined> {
    if (turnId === undefined) return undefined;
    const turn = this.host.turn;
    if (!turn || turn.id !== turnId || turn.mode !== "search") return undefined;
    const catalog = await this.host.catalog();
    if (loadedTools(turn, catalog.fingerprint).includes(name)) return undefined;
    return toolError(
      `Tool "${name}" is not loaded in this turn. Call search_tools to find the tool you need first (it becomes callable right away), or call it through call_tool.`,
    );
  }

  /** Code mode's `execute` (never a catalog name: those always hold a `_`). */
  isExecuteTool(name: string): boolean {
    return name === EXECUTE_TOOL_NAME;
  }

  /** Runs `execute`: bad arguments and a missing sandbox are tool errors the model can read; the outcome is text. */
  async callExecute(args: Record<string, unknown>, signal?: AbortSignal): Promise<NormalizedResult> {
    const parsed = ExecuteArguments.safeParse(args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return toolError(`execute needs {code: string, timeoutMs?: integer ≥ 1}${issue ? `: ${issue.path.join(".") || "(arguments)"}: ${issue.message}` : ""}`);
    }
    if (!this.host.runCode) return toolError("Code mode is not available here: this deployment has no sandbox to run scripts.");
    const { text, isError } = execOutputText(await this.host.runCode(parsed.data, signal));
    return { output: text, attachments: [], metadata: {}, isError };
  }

  /** The `execute` tool for this catalog and window; the declarations are generated once per catalog (the window changes every step). */
  private executeToolFor(catalog: Catalog, window: CatalogWindow): ApiTool {
    if (this.declarations?.fingerprint !== catalog.fingerprint) {
      this.declarations = { fingerprint: catalog.fingerprint, text: declarationsForBudget(catalog.tools) };
    }
    const { tool } = executeTool(catalog.tools, window, this.declarations.text);
    return { name: tool.name, server: META_SERVER, tool: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema };
  }

  isMetaTool(name: string): name is MetaToolName {
    return isMetaTool(name);
  }

  /** Runs a meta-tool; bad arguments are tool errors the model can correct, never HTTP errors. */
  async callMeta(name: MetaToolName, args: Record<string, unknown>, turnId: string | undefined, signal?: AbortSignal): Promise<NormalizedResult> {
    const str = (key: string) => (typeof args[key] === "string" && (args[key] as string).trim() !== "" ? (args[key] as string) : undefined);
    switch (name) {
      case "search_tools": {
        const query = str("query");
        if (!query) return toolError("search_tools needs a non-empty string argument query");
        if (query.length > MAX_SEARCH_QUERY_CHARS) return toolError(`search_tools: query is over ${MAX_SEARCH_QUERY_CHARS} characters; say it shorter`);
        const limit = typeof args.limit === "number" && Number.isFinite(args.limit) ? Math.floor(args.limit) : SEARCH_DEFAULT_LIMIT;
        const { results } = await this.search(query, limit, turnId);
        return toolOutput(results.length ? results : `No tools match "${query}". Try other words.`);
      }
      case "get_tool_details": {
        const tool = str("name");
        if (!tool) return toolError("get_tool_details needs a string argument name");
        const definition = (await this.host.catalog()).byName.get(tool);
        if (!definition) return toolError(`No tool named "${tool}". Use search_tools to find tool names.`);
        return toolOutput(definition);
      }
      case "call_tool": {
        const tool = str("name");
        if (!tool) return toolError("call_tool needs a string argument name");
        if (isMetaTool(tool)) return toolError(`call_tool calls MCP tools; call ${tool} directly`);
        const toolArgs = args.arguments ?? {};
        if (typeof toolArgs !== "object" || toolArgs === null || Array.isArray(toolArgs)) return toolError("call_tool: arguments must be an object");
        try {
          return await this.host.callCatalogTool(tool, toolArgs as Record<string, unknown>, signal);
        } catch (error) {
          if (McpEdgeError.is(error) && error.code === "toolNotFound") return toolError(`No tool named "${tool}". Use search_tools to find tool names.`);
          throw error;
        }
      }
      case "search_servers": {
        const query = (str("query") ?? "").toLowerCase();
        const words = query.split(/[^a-z0-9]+/).filter(Boolean);
        const servers = this.host
          .dormantServers()
          .map((s) => ({ ...s, score: words.filter((w) => `${s.name} ${s.description ?? ""}`.toLowerCase().includes(w)).length }))
          .filter((s) => words.length === 0 || s.score > 0)
          .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
          .map(({ score: _score, ...s }) => s);
        return toolOutput(servers.length ? servers : "No configured server that is not connected matches. All matching servers may already be enabled.");
      }
      case "enable_server": {
        const server = str("name");
        if (!server) return toolError("enable_server needs a string argument name");
        const status = await this.host.enableServer(server);
        return status.status === "connected"
          ? toolOutput(`Server "${server}" is connected with ${status.tools ?? 0} tools; use search_tools to find them.`)
          : toolError(`Server "${server}" could not be enabled: ${status.status}${status.error ? `: ${status.error}` : ""}`);
      }
      case "disable_server": {
        const server = str("name");
        if (!server) return toolError("disable_server needs a string argument name");
        const turn = turnId !== undefined && this.host.turn?.id === turnId ? this.host.turn : undefined;
        if (turn) {
          // Never mid-turn: the tools array (and the prompt cache) stay stable within a turn.
          if (!turn.pendingDisable.includes(server)) await this.host.saveTurn({ ...turn, pendingDisable: [...turn.pendingDisable, server] });
          return toolOutput(`Server "${server}" will be disconnected when the next turn starts.`);
        }
        await this.host.disableServer(server);
        return toolOutput(`Server "${server}" is disconnected.`);
      }
    }
  }

  private tokensOf(catalog: Catalog): number {
    if (this.fullTokens?.fingerprint !== catalog.fingerprint) {
      this.fullTokens = { fingerprint: catalog.fingerprint, tokens: estimateToolsTokens(catalog.tools) };
    }
    return this.fullTokens.tokens;
  }

  /** The index for this catalog: memory, then KV, then built (and stored in KV). */
  private async indexFor(catalog: Catalog): Promise<SearchIndex> {
    if (this.index?.fingerprint === catalog.fingerprint) return this.index.index;
    const key = `search:v1:${catalog.fingerprint}`;
    let index: SearchIndex | undefined;
    const stored = await withinKvDeadline(this.host.kv.get(key), "search index read").catch((error: unknown) => {
      this.host.log("search index cache read failed; building it", { reason: messageOf(error) });
      return null;
    });
    if (stored) {
      try {
        index = deserializeSearchIndex(stored);
      } catch (error) {
        this.host.log("ignoring a stored search index", { reason: messageOf(error) });
      }
    }
    if (!index) {
      const descriptions = this.host.serverDescriptions();
      index = buildSearchIndex(
        catalog.tools.map((t) => ({
          id: t.name,
          server: t.server,
          name: t.tool,
          description: t.description,
          ...(descriptions[t.server] ? { serverDescription: descriptions[t.server] } : {}),
          inputSchema: t.inputSchema,
        })),
      );
      await withinKvDeadline(this.host.kv.put(key, serializeSearchIndex(index), { expirationTtl: SEARCH_INDEX_TTL_SECONDS }), "search index write").catch((error: unknown) =>
        this.host.log("search index cache write failed", { reason: messageOf(error) }),
      );
    }
    this.index = { fingerprint: catalog.fingerprint, index };
    return index;
  }

  private warnDisplaced(catalog: Catalog): void {
    for (const d of catalog.displaced) {
      const key = `${d.server}\u0000${d.tool}`;
      if (this.warned.has(key)) continue;
      this.warned.add(key);
      this.host.log("an MCP tool's name is reserved for a meta-tool; it keeps an alternative name", { server: d.server, tool: d.tool, name: d.name });
    }
  }
}

function toolOutput(value: unknown): NormalizedResult {
  return { output: typeof value === "string" ? value : JSON.stringify(value, null, 2), attachments: [], metadata: {}, isError: false };
}

function toolError(message: string): NormalizedResult {
  return { output: message, attachments: [], metadata: {}, isError: true };
}

