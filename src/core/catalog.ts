/**
 * Tool catalogs: the model-facing list built from every connected server's tools
 * (named, sorted, schemas made model-safe), the synthetic resource tools, and the
 * fingerprints that key the cross-session catalog cache.
 */
import { baseToolName, nameTools, shortHash, type NamedTool } from "./naming.js";

/** One tool as a server listed it, kept with the server's name. */
export interface ServerTool {
  server: string;
  tool: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** false: named without the server prefix. */
  prefix?: boolean;
}

/** One entry of `GET /v1/sessions/:id/tools`. */
export interface ApiTool {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** What a server's `tools/list` gave, reduced to what we keep and cache. */
export interface CachedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export function toCachedTool(raw: { name: string; description?: string; inputSchema?: unknown; outputSchema?: unknown }): CachedTool {
  return {
    name: raw.name,
    ...(raw.description === undefined ? {} : { description: raw.description }),
    inputSchema: modelInputSchema(raw.inputSchema),
    ...(isRecord(raw.outputSchema) ? { outputSchema: raw.outputSchema } : {}),
  };
}

/** Providers require an object schema at the top; servers sometimes omit `type`. */
export function modelInputSchema(schema: unknown): Record<string, unknown> {
  const base = isRecord(schema) ? schema : {};
  return { ...base, type: "object", properties: isRecord(base.properties) ? base.properties : {} };
}

export const SYNTHETIC_SERVER = "mcp";

/** Synthetic tools offered when any connected server declares resources. */
export const RESOURCE_TOOLS: readonly CachedTool[] = [
  {
    name: "list_mcp_resources",
    description: "List the resources that the connected MCP servers offer (uri, name, mimeType, server).",
    inputSchema: { type: "object", properties: { server: { type: "string", description: "Only this server's resources" } } },
  },
  {
    name: "list_mcp_resource_templates",
    description: "List the resource URI templates that the connected MCP servers offer.",
    inputSchema: { type: "object", properties: { server: { type: "string", description: "Only this server's templates" } } },
  },
  {
    name: "read_mcp_resource",
    description: "Read one resource from an MCP server by its URI.",
    inputSchema: {
      type: "object",
      properties: { server: { type: "string", description: "The server that offers the resource" }, uri: { type: "string" } },
      required: ["server", "uri"],
    },
  },
];

export type ToolTarget = { kind: "server"; server: string; tool: string } | { kind: "synthetic"; tool: string };

export interface Catalog {
  tools: ApiTool[];
  targets: Map<string, ToolTarget>;
  byName: Map<string, ApiTool>;
  /** Changes whenever a name, description or schema in the list changes. */
  fingerprint: string;
  /** Server tools that wanted a reserved name and got an alternative one (worth a warning). */
  displaced: Array<{ server: string; tool: string; name: string }>;
}

export interface CatalogOptions {
  /** Add the synthetic resource tools (some connected server declares resources). */
  withResourceTools: boolean;
  /** Names no server tool may take (the meta-tools); they keep deterministic alternatives. */
  reserved?: readonly string[];
}

/**
 * Builds the model-facing catalog. Synthetic and reserved names are fixed and win over a
 * server tool that sanitizes to the same name (which then gets a hashed name).
 */
export function buildCatalog(servers: ReadonlyArray<{ server: string; tools: readonly CachedTool[]; prefix?: boolean }>, options: CatalogOptions): Catalog {
  const entries: Array<ServerTool> = servers.flatMap(({ server, tools, prefix }) =>
    tools.map((t) => ({
      server,
      tool: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      ...(prefix === false ? { prefix } : {}),
    })),
  );
  const reserved = new Set([...(options.withResourceTools ? RESOURCE_TOOLS.map((t) => t.name) : []), ...(options.reserved ?? [])]);
  const named: NamedTool<ServerTool>[] = nameTools(entries, reserved);
  const displaced = named
    .filter(({ name, entry }) => name !== baseToolName(entry) && reserved.has(baseToolName(entry)))
    .map(({ name, entry }) => ({ server: entry.server, tool: entry.tool, name }));
  const tools: ApiTool[] = named.map(({ name, entry }) => ({
    name,
    server: entry.server,
    tool: entry.tool,
    description: entry.description ?? "",
    inputSchema: entry.inputSchema,
    ...(entry.outputSchema ? { outputSchema: entry.outputSchema } : {}),
  }));
  const targets = new Map<string, ToolTarget>(named.map(({ name, entry }) => [name, { kind: "server", server: entry.server, tool: entry.tool }]));
  if (options.withResourceTools) {
    for (const t of RESOURCE_TOOLS) {
      tools.push({ name: t.name, server: SYNTHETIC_SERVER, tool: t.name, description: t.description ?? "", inputSchema: t.inputSchema });
      targets.set(t.name, { kind: "synthetic", tool: t.name });
    }
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  return { tools, targets, byName, fingerprint: shortHash(canonicalJson(tools)), displaced };
}

/** SHA-256 hex of a canonical JSON rendering (Web Crypto: same in Node and Workers). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A server's identity for the shared cache: its URL and the credentials it is called with. */
export function serverIdentity(config: { type: string; url?: string; headers?: Record<string, string>; bridge?: string; server?: string }): Promise<string> {
  return sha256Hex(canonicalJson({ type: config.type, url: config.url, headers: config.headers, bridge: config.bridge, server: config.server }));
}

export function catalogFingerprint(tools: readonly CachedTool[]): Promise<string> {
  return sha256Hex(canonicalJson(tools));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The catalog without the tools `hide` names (a session's `deny` rules): neither listed,
 * searchable nor callable. A different visible list is a different catalog, so the
 * fingerprint (which discovery keys its search index by) changes with it.
 */
export function withoutTools(catalog: Catalog, hide: (name: string) => boolean): Catalog {
  const hidden = catalog.tools.filter((tool) => hide(tool.name)).map((tool) => tool.name);
  if (hidden.length === 0) return catalog;
  const gone = new Set(hidden);
  return {
    ...catalog,
    tools: catalog.tools.filter((tool) => !gone.has(tool.name)),
    targets: new Map([...catalog.targets].filter(([name]) => !gone.has(name))),
    byName: new Map([...catalog.byName].filter(([name]) => !gone.has(name))),
    fingerprint: `${catalog.fingerprint}-${shortHash(hidden.sort().join("\n"))}`,
  };
}
