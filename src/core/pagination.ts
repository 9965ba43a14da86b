/**
 * Collects a paginated MCP list (`tools/list`, `resources/list`, …). Stops at a page
 * cap; a cursor seen twice is an error, never a loop.
 */
import { McpEdgeError } from "./errors.js";

export const DEFAULT_MAX_PAGES = 100;

export interface Page<T> {
  items: T[];
  nextCursor?: string | undefined;
}

export async function collectPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  options: { maxPages?: number; what?: string } = {},
): Promise<T[]> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const what = options.what ?? "list";
  const seen = new Set<string>();
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await fetchPage(cursor);
    items.push(...result.items);
    // Absent, null or empty: no more pages (some servers send "" for "none").
    if (result.nextCursor === undefined || result.nextCursor === null || result.nextCursor === "") return items;
    if (seen.has(result.nextCursor)) {
      throw new McpEdgeError("upstreamError", `${what}: the server repeated cursor ${JSON.stringify(result.nextCursor)}`);
    }
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  throw new McpEdgeError("upstreamError", `${what}: more than ${maxPages} pages`);
}
