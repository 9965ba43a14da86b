/**
 * The bridge's server list, from the config formats people already have:
 *   Claude-style   {"mcpServers": {NAME: {command, args?, env?, cwd?, type?: "stdio"}}}
 *   opencode-style {"mcp": {NAME: {type: "local", command: [argv], environment?, cwd?, enabled?, timeout?}}}
 * Both normalize to BridgeServer. Remote entries (http/sse/url, "remote") and disabled ones
 * are skipped with a notice; unknown keys fail with an error naming them. Claude Code's
 * own files are read by claude-import.ts (`--import-claude`).
 */
import { z } from "zod";
import { SERVER_NAME_PATTERN } from "../../src/core/config.js";
import { McpEdgeError } from "../../src/core/errors.js";
import { validationError } from "../../src/core/validation.js";
import { expandClaudeRefs, expandOpencodeRefs, type Env } from "./expand-env.js";
import { readJsonFile } from "./json-file.js";

/** One stdio server the bridge can run. */
export interface BridgeServer {
  name: string;
  command: string;
  args: string[];
  /** The configured env only (references expanded); buildChildEnv adds the inherited part. */
  env: Record<string, string>;
  cwd?: string;
  /** Where it was defined: a file, plus the Claude scope for imports. */
  source: string;
  /** opencode's `timeout` (ms), when given. */
  timeoutMs?: number;
}

export type ConfigNoticeKind = "skipped" | "disabled" | "clash" | "imported" | "invalid";

/** Something the user should see but that does not stop the bridge. */
export interface ConfigNotice {
  kind: ConfigNoticeKind;
  server: string;
  source: string;
  message: string;
}

export type ConfigResult = { ok: true; servers: BridgeServer[]; notices: ConfigNotice[] } | { ok: false; error: McpEdgeError };

export interface ServerList {
  servers: BridgeServer[];
  notices: ConfigNotice[];
}

const stringMap = z.record(z.string(), z.string());

export const ClaudeStdioEntrySchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: z.string().min(1).optional(),
});

export const OpencodeLocalEntrySchema = z.strictObject({
  type: z.literal("local"),
  command: z.array(z.string()).min(1, "command needs at least the program").refine((argv) => argv[0] !== "", "command[0] must not be empty"),
  environment: stringMap.optional(),
  cwd: z.string().min(1).optional(),
  enabled: z.boolean().optional(),
  timeout: z.number().int().positive().optional(),
});

const serverMap = z.record(
  z.string().regex(SERVER_NAME_PATTERN, "server names are 1-128 characters without '/' or control characters"),
  z.unknown(),
);

export const BridgeConfigFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    mcpServers: serverMap.optional(),
    mcp: serverMap.optional(),
  })
  .refine((c) => c.mcpServers !== undefined || c.mcp !== undefined, 'config needs "mcpServers" (Claude style) or "mcp" (opencode style)');

/** Claude-style entries that talk HTTP; the bridge only runs processes. */
const CLAUDE_REMOTE_TYPES = new Set(["http", "sse", "url", "streamable-http"]);

/** One entry: a server to run, a notice (skipped, disabled), or an error in the entry. */
export type EntryOutcome =
  | { kind: "server"; server: BridgeServer }
  | { kind: "notice"; notice: ConfigNotice }
  | { kind: "error"; error: McpEdgeError };

function typeOf(raw: unknown): unknown {
  return typeof raw === "object" && raw !== null ? (raw as { type?: unknown }).type : undefined;
}

function notice(kind: ConfigNoticeKind, server: string, source: string, message: string): EntryOutcome {
  return { kind: "notice", notice: { kind, server, source, message } };
}

function entryError(name: string, source: string, error: z.ZodError): EntryOutcome {
  return { kind: "error", error: validationError(error, { what: `server "${name}" (${source})`, code: "invalidConfig", data: { server: name, source } }) };
}

export function parseClaudeEntry(name: string, raw: unknown, source: string, env: Env): EntryOutcome {
  const type = typeOf(raw);
  const hasUrl = typeof raw === "object" && raw !== null && "url" in raw && !("command" in raw);
  if ((typeof type === "string" && CLAUDE_REMOTE_TYPES.has(type)) || (type === undefined && hasUrl)) {
    return notice("skipped", name, source, `server "${name}" is not a stdio server (type ${String(type ?? "url")}); the bridge runs stdio servers only`);
  }
  if (type !== undefined && type !== "stdio") {
    const error = new McpEdgeError("invalidConfig", `server "${name}" (${source}): type must be "stdio" (http and sse entries are skipped), got ${JSON.stringify(type)}`, {
      server: name,
      source,
    });
    return { kind: "error", error };
  }
  const parsed = ClaudeStdioEntrySchema.safeParse(raw);
  if (!parsed.success) return entryError(name, source, parsed.error);
  const entry = parsed.data;

  const missing: string[] = [];
  const expand = (text: string): string => {
    const result = expandClaudeRefs(text, env);
    if (result.ok) return result.value;
    missing.push(...result.missing);
    return "";
  };
  const server: BridgeServer = {
    name,
    command: expand(entry.command),
    args: (entry.args ?? []).map(expand),
    env: Object.fromEntries(Object.entries(entry.env ?? {}).map(([k, v]) => [k, expand(v)])),
    ...(entry.cwd === undefined ? {} : { cwd: expand(entry.cwd) }),
    source,
  };
  if (missing.length > 0) {
    const names = [...new Set(missing)].join(", ");
    return notice("skipped", name, source, `server "${name}" skipped: environment variable ${names} is not set and has no default`);
  }
  return { kind: "server", server };
}

export function parseOpencodeEntry(name: string, raw: unknown, source: string, env: Env): EntryOutcome {
  const type = typeOf(raw);
  if (type === "remote") return notice("skipped", name, source, `server "${name}" is a remote server; the bridge runs local servers only`);
  if (type !== "local") {
    const error = new McpEdgeError("invalidConfig", `server "${name}" (${source}): type must be "local" (remote entries are skipped), got ${JSON.stringify(type ?? null)}`, {
      server: name,
      source,
    });
    return { kind: "error", error };
  }
  const parsed = OpencodeLocalEntrySchema.safeParse(raw);
  if (!parsed.success) return entryError(name, source, parsed.error);
  const entry = parsed.data;
  if (entry.enabled === false) return notice("disabled", name, source, `server "${name}" is disabled (enabled: false)`);
  const [command, ...args] = entry.command.map((part) => expandOpencodeRefs(part, env));
  return {
    kind: "server",
    server: {
      name,
      command: command!,
      args,
      env: Object.fromEntries(Object.entries(entry.environment ?? {}).map(([k, v]) => [k, expandOpencodeRefs(v, env)])),
      ...(entry.cwd === undefined ? {} : { cwd: expandOpencodeRefs(entry.cwd, env) }),
      source,
      ...(entry.timeout === undefined ? {} : { timeoutMs: entry.timeout }),
    },
  };
}

export interface ParseOptions {
  /** Where the config came from, for notices and errors (usually the file path). */
  source: string;
  /** Values for `${VAR}` / `{env:VAR}` references; process.env by default. */
  env?: Env;
}

/** Validates a parsed config file. Any invalid entry fails the whole config: it is the user's own file. */
export function parseBridgeConfig(input: unknown, options: ParseOptions): ConfigResult {
  const env = options.env ?? process.env;
  const file = BridgeConfigFileSchema.safeParse(input);
  if (!file.success) {
    return { ok: false, error: validationError(file.error, { what: `config ${options.source}`, code: "invalidConfig", data: { source: options.source } }) };
  }
  const both = Object.keys(file.data.mcpServers ?? {}).filter((name) => Object.hasOwn(file.data.mcp ?? {}, name));
  if (both.length > 0) {
    return { ok: false, error: new McpEdgeError("invalidConfig", `config ${options.source}: ${both.map((n) => `"${n}"`).join(", ")} defined in both "mcpServers" and "mcp"`) };
  }
  const servers: BridgeServer[] = [];
  const notices: ConfigNotice[] = [];
  const outcomes = [
    ...Object.entries(file.data.mcpServers ?? {}).map(([name, raw]) => parseClaudeEntry(name, raw, options.source, env)),
    ...Object.entries(file.data.mcp ?? {}).map(([name, raw]) => parseOpencodeEntry(name, raw, options.source, env)),
  ];
  for (const outcome of outcomes) {
    if (outcome.kind === "error") return { ok: false, error: outcome.error };
    if (outcome.kind === "notice") notices.push(outcome.notice);
    else servers.push(outcome.server);
  }
  return { ok: true, servers, notices };
}

/** Reads and validates the bridge's config file (`--config`). */
export async function loadBridgeConfig(file: string, options: { env?: Env } = {}): Promise<ConfigResult> {
  const json = await readJsonFile(file);
  if (!json.ok) return { ok: false, error: new McpEdgeError("invalidConfig", json.reason, { source: file }) };
  return parseBridgeConfig(json.value, { source: file, env: options.env });
}

/** Explicit config wins over imported servers of the same name; each clash is reported. */
export function mergeServers(explicit: readonly BridgeServer[], imported: readonly BridgeServer[]): ServerList {
  const names = new Map(explicit.map((s) => [s.name, s]));
  const servers = [...explicit];
  const notices: ConfigNotice[] = [];
  for (const server of imported) {
    const winner = names.get(server.name);
    if (winner) {
      notices.push({ kind: "clash", server: server.name, source: server.source, message: `server "${server.name}" from ${server.source} ignored: ${winner.source} defines it` });
    } else {
      servers.push(server);
    }
  }
  return { servers, notices };
}
