/**
 * Model-facing tool names: `sanitize(server) + "_" + sanitize(tool)` (or `sanitize(tool)`
 * alone for a server configured with `"prefix": false`), at most 64
 * characters (providers reject longer ones). Long names are cut and get a short hash
 * of the original identity; names that still collide all get the hash, so every tool
 * stays reachable and the result does not depend on input order. Dispatch always
 * uses the original server and tool names kept beside the final name.
 */

export const MAX_TOOL_NAME_LENGTH = 64;
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const HASH_LENGTH = 8;

export function sanitizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/gu, "_");
}

/** FNV-1a (32 bit), hex: a short, stable, synchronous fingerprint for names. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(HASH_LENGTH, "0");
}

export interface ToolIdentity {
  server: string;
  tool: string;
  /** false: the tool keeps its own name, without `server_` (a server's `"prefix": false`). */
  prefix?: boolean;
}

/** The name before length caps and collisions: `server_tool`, or `tool` for an unprefixed server. */
export function baseToolName(identity: ToolIdentity): string {
  return identity.prefix === false ? sanitizeName(identity.tool) : `${sanitizeName(identity.server)}_${sanitizeName(identity.tool)}`;
}

export interface NamedTool<T extends ToolIdentity = ToolIdentity> {
  name: string;
  entry: T;
}

function withHash(base: string, identity: ToolIdentity): string {
  const suffix = `_${shortHash(`${identity.server}\u0000${identity.tool}`)}`;
  return base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}

/**
 * Names every tool and returns them sorted by final name (stable for prompt caches).
 * `reserved` names (e.g. synthetic tools) are never given to a tool: one that would
 * get such a name gets the hashed form instead.
 */
export function nameTools<T extends ToolIdentity>(entries: readonly T[], reserved: ReadonlySet<string> = new Set()): NamedTool<T>[] {
  const ordered = [...entries].sort((a, b) => compare(a.server, b.server) || compare(a.tool, b.tool));
  const first = ordered.map((entry) => {
    const base = baseToolName(entry);
    return { entry, base, name: base.length > MAX_TOOL_NAME_LENGTH ? withHash(base, entry) : base };
  });
  const counts = countBy(first.map((item) => item.name));
  const second = first.map((item) => ({
    ...item,
    name: counts.get(item.name)! > 1 || reserved.has(item.name) ? withHash(item.base, item.entry) : item.name,
  }));
  // A hashed name can still equal another tool's plain name (or two hashes can collide):
  // number the later ones in identity order, skipping every name already in use.
  const taken = new Set<string>([...reserved, ...second.map((item) => item.name)]);
  const used = new Set<string>(reserved);
  const named = second.map(({ entry, name }) => {
    if (!used.has(name)) {
      used.add(name);
      return { name, entry };
    }
    for (let n = 1; ; n++) {
      const suffix = `_${n}`;
      const candidate = name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
      if (taken.has(candidate)) continue;
      taken.add(candidate);
      used.add(candidate);
      return { name: candidate, entry };
    }
  });
  return named.sort((a, b) => compare(a.name, b.name));
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
