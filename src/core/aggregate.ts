/**
 * The aggregated MCP endpoint's translations, pure: how the resources and prompts of
 * several servers are presented as one server's (resources keep their URIs and carry
 * their server in `_meta`; prompts are named like tools), which server a resource URI
 * belongs to, and a normalized result (meta-tools, resource tools) as MCP content.
 */
import { nameTools } from "./naming.js";
import type { NormalizedResult } from "./normalize.js";

/** `_meta` key naming the server a listed resource, template or prompt comes from. */
export const SERVER_META_KEY = "io.mcp-edge/server";
/** `_meta` key with a prompt's own name (the listed name may carry the server prefix). */
export const PROMPT_META_KEY = "io.mcp-edge/prompt";
/** `_meta` key of a tools/list or tools/call request naming the session's turn. */
export const TURN_META_KEY = "io.mcp-edge/turn";

type Meta = Record<string, unknown>;

function withServer<T extends { _meta?: Meta }>(item: T, server: string): T {
  return { ...item, _meta: { ...(item._meta ?? {}), [SERVER_META_KEY]: server } };
}

/** Listed resources and templates: unchanged but for `_meta[SERVER_META_KEY]` (and no `server` field). */
export function presentListed<T extends { server: string; _meta?: Meta }>(items: readonly T[]): Array<Omit<T, "server">> {
  return items.map(({ server, ...rest }) => withServer(rest as Omit<T, "server"> & { _meta?: Meta }, server));
}

export interface PromptEntry {
  server: string;
  name: string;
  prefix?: boolean;
}

export interface NamedPrompt<T extends PromptEntry> {
  /** The name downstream sees: `server_prompt` (or the prompt's own for unprefixed servers), capped and unique. */
  name: string;
  entry: T;
}

/** Prompts named exactly like tools (same sanitizing, cap, hashing of collisions, order). */
export function namePrompts<T extends PromptEntry>(prompts: readonly T[]): Array<NamedPrompt<T>> {
  const identities = prompts.map((p) => ({ server: p.server, tool: p.name, ...(p.prefix === false ? { prefix: false } : {}), prompt: p }));
  return nameTools(identities).map(({ name, entry }) => ({ name, entry: entry.prompt }));
}

/** How a resource URI is resolved to a server when the request does not name one. */
export interface ResourceOwners {
  /** Listed resources (exact URIs). */
  resources: ReadonlyArray<{ uri: string; server: string }>;
  templates: ReadonlyArray<{ uriTemplate: string; server: string }>;
  /** Servers that offer resources at all, sorted. */
  servers: readonly string[];
}

/**
 * The server to read `uri` from: the first (by server name) that listed it, else one
 * whose template matches it (RFC 6570, matched by the caller's `matchesTemplate`), else
 * the only server with resources; undefined when
 * nothing says (the client then has to name the server in `_meta`).
 */
export function resourceOwner(uri: string, owners: ResourceOwners, matchesTemplate: (template: string, uri: string) => boolean): string | undefined {
  const byName = (a: { server: string }, b: { server: string }) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0);
  const listed = [...owners.resources].sort(byName).find((r) => r.uri === uri);
  if (listed) return listed.server;
  const templates = [...owners.templates].sort(byName);
  // A completion ref names the template itself.
  const templated = templates.find((t) => t.uriTemplate === uri) ?? templates.find((t) => matchesTemplate(t.uriTemplate, uri));
  if (templated) return templated.server;
  return owners.servers.length === 1 ? owners.servers[0] : undefined;
}

/** A server name a request names in `_meta`, if any. */
export function requestedServer(meta: unknown): string | undefined {
  const value = typeof meta === "object" && meta !== null ? (meta as Meta)[SERVER_META_KEY] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A turn id a request names in `_meta`: a string, or `{id}`. */
export function requestedTurn(meta: unknown): { id: string; actorId?: string } | undefined {
  const value = typeof meta === "object" && meta !== null ? (meta as Meta)[TURN_META_KEY] : undefined;
  if (typeof value === "string" && value !== "") return { id: value };
  if (typeof value === "object" && value !== null && typeof (value as Meta).id === "string") {
    const { id, actorId } = value as { id: string; actorId?: unknown };
    return { id, ...(typeof actorId === "string" ? { actorId } : {}) };
  }
  return undefined;
}

/**
 * Whether every `$ref` of a JSON Schema points inside it (`#`, `#/…` JSON pointers that
 * resolve). Downstream SDK clients compile each listed `outputSchema`, and one they
 * cannot resolve fails their whole tools/list, so such a schema is left out there.
 */
export function refsResolve(schema: unknown): boolean {
  const resolves = (ref: string): boolean => {
    if (ref === "#") return true;
    if (!ref.startsWith("#/")) return false;
    let node: unknown = schema;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (typeof node !== "object" || node === null || !(key in node)) return false;
      node = (node as Record<string, unknown>)[key];
    }
    return true;
  };
  const walk = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.every(walk);
    if (typeof node !== "object" || node === null) return true;
    return Object.entries(node).every(([key, value]) => (key === "$ref" && typeof value === "string" ? resolves(value) : walk(value)));
  };
  return walk(schema);
}

type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType: string; blob: string } };

/**
 * A normalized result (what meta-tools and the resource tools give) as MCP tool
 * content: the output as text, data-URL attachments as image/audio content or, for
 * other types, embedded blobs.
 */
export function normalizedToContent(result: NormalizedResult): { content: ContentBlock[]; isError?: true } {
  const content: ContentBlock[] = [];
  if (result.output !== "" || result.attachments.length === 0) content.push({ type: "text", text: result.output });
  result.attachments.forEach((attachment, index) => {
    const data = /^data:[^,]*;base64,(.*)$/s.exec(attachment.url)?.[1];
    if (data === undefined) {
      content.push({ type: "text", text: attachment.url });
      return;
    }
    const kind = attachment.mime.split("/")[0];
    if (kind === "image" || kind === "audio") content.push({ type: kind, data, mimeType: attachment.mime });
    else content.push({ type: "resource", resource: { uri: `attachment:${index + 1}`, mimeType: attachment.mime, blob: data } });
  });
  return { content, ...(result.isError ? { isError: true as const } : {}) };
}
