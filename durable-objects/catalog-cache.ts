/**
 * The cross-session tool catalog cache in KV: `catalog:v1:<server identity>:<fingerprint>`
 * holds a server's tool list, so a session can show a known server's tools before its
 * connection is back up. A changed list gets a new fingerprint and so a new entry;
 * entries expire on their own.
 *
 * KV is an optimisation, never a dependency: every read and write here (and the search
 * index's, in discovery.ts) is bounded by KV_DEADLINE_MS, and a failed or late one is a
 * logged warning and a miss, so sessions list and call tools with KV down or slow.
 */
import { z } from "zod";
import type { CachedTool } from "../src/core/catalog.js";
import { messageOf } from "../src/core/errors.js";

export const CATALOG_TTL_SECONDS = 7 * 24 * 3600;

/** How long a KV operation may take before it counts as failed (a cache miss, a skipped write). */
export const KV_DEADLINE_MS = 2_000;

/** `operation`, or a rejection once `ms` have passed without an answer. */
export async function withinKvDeadline<T>(operation: Promise<T>, what: string, ms = KV_DEADLINE_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`KV ${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([operation, late]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

const CachedToolsSchema = z.array(
  z.object({
    name: z.string(),
    description: z.string().optional(),
    inputSchema: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
  }),
);

function key(identity: string, fingerprint: string): string {
  return `catalog:v1:${identity}:${fingerprint}`;
}

/** The cached tools, or undefined on a miss, a bad entry, or a KV that fails or is late (logged). */
export async function readCatalog(kv: KVNamespace, identity: string, fingerprint: string): Promise<CachedTool[] | undefined> {
  let raw: unknown;
  try {
    raw = await withinKvDeadline(kv.get(key(identity, fingerprint), "json"), "catalog read");
  } catch (error) {
    console.warn("catalog cache read failed; waiting for the server instead", messageOf(error));
    return undefined;
  }
  if (raw === null) return undefined;
  const parsed = CachedToolsSchema.safeParse(raw);
  return parsed.success ? (parsed.data as CachedTool[]) : undefined;
}

export async function writeCatalog(kv: KVNamespace, identity: string, fingerprint: string, tools: readonly CachedTool[]): Promise<void> {
  await withinKvDeadline(kv.put(key(identity, fingerprint), JSON.stringify(tools), { expirationTtl: CATALOG_TTL_SECONDS }), "catalog write");
}
