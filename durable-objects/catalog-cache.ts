/**
 * The cross-session tool catalog cache in KV: `catalog:v1:<server identity>:<fingerprint>`
 * holds a server's tool list, so a session can show a known server's tools before its
 * connection is back up. A changed list gets a new fingerprint and so a new entry;
 * entries expire on their own.
 */
import { z } from "zod";
import type { CachedTool } from "../src/core/catalog.js";

export const CATALOG_TTL_SECONDS = 7 * 24 * 3600;

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

export async function readCatalog(kv: KVNamespace, identity: string, fingerprint: string): Promise<CachedTool[] | undefined> {
  const raw = await kv.get(key(identity, fingerprint), "json");
  if (raw === null) return undefined;
  const parsed = CachedToolsSchema.safeParse(raw);
  return parsed.success ? (parsed.data as CachedTool[]) : undefined;
}

export async function writeCatalog(kv: KVNamespace, identity: string, fingerprint: string, tools: readonly CachedTool[]): Promise<void> {
  await kv.put(key(identity, fingerprint), JSON.stringify(tools), { expirationTtl: CATALOG_TTL_SECONDS });
}
