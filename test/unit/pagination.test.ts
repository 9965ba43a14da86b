import { describe, expect, it } from "vitest";
import { McpEdgeError } from "../../src/core/errors.js";
import { collectPages, DEFAULT_MAX_PAGES, type Page } from "../../src/core/pagination.js";

/** A fake server: pages keyed by the cursor that fetches them ("" = first page). Records the cursors asked for. */
function server(pages: Record<string, Page<number>>) {
  const asked: Array<string | undefined> = [];
  const fetchPage = async (cursor: string | undefined) => {
    asked.push(cursor);
    const page = pages[cursor ?? ""];
    if (!page) throw new Error(`unexpected cursor ${cursor}`);
    return page;
  };
  return { asked, fetchPage };
}

async function rejection(promise: Promise<unknown>): Promise<McpEdgeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpEdgeError);
  return error as McpEdgeError;
}

describe("collectPages", () => {
  it("a single page without a cursor", async () => {
    const s = server({ "": { items: [1, 2] } });
    expect(await collectPages(s.fetchPage)).toEqual([1, 2]);
    expect(s.asked).toEqual([undefined]);
  });

  it("follows cursors in order and concatenates items", async () => {
    const s = server({ "": { items: [1], nextCursor: "c1" }, c1: { items: [2, 3], nextCursor: "c2" }, c2: { items: [], nextCursor: "c3" }, c3: { items: [4] } });
    expect(await collectPages(s.fetchPage)).toEqual([1, 2, 3, 4]);
    expect(s.asked).toEqual([undefined, "c1", "c2", "c3"]);
  });

  it("a null nextCursor (sent by some servers) ends the list", async () => {
    const s = server({ "": { items: [1], nextCursor: null as unknown as undefined } });
    expect(await collectPages(s.fetchPage)).toEqual([1]);
  });

  it("a cursor repeated on the next page is an error, not a loop", async () => {
    const s = server({ "": { items: [1], nextCursor: "same" }, same: { items: [2], nextCursor: "same" } });
    const error = await rejection(collectPages(s.fetchPage, { what: "tools/list" }));
    expect(error.code).toBe("upstreamError");
    expect(error.status).toBe(502);
    expect(error.message).toBe('tools/list: the server repeated cursor "same"');
    expect(s.asked).toEqual([undefined, "same"]);
  });

  it("a cycle over several cursors is detected too", async () => {
    const s = server({ "": { items: [0], nextCursor: "a" }, a: { items: [1], nextCursor: "b" }, b: { items: [2], nextCursor: "a" } });
    const error = await rejection(collectPages(s.fetchPage));
    expect(error.message).toContain('repeated cursor "a"');
    expect(s.asked).toEqual([undefined, "a", "b"]);
  });

  it("stops at maxPages with an error", async () => {
    let calls = 0;
    const endless = async (cursor: string | undefined) => {
      calls++;
      return { items: [calls], nextCursor: `c${Number((cursor ?? "c0").slice(1)) + 1}` };
    };
    const error = await rejection(collectPages(endless, { maxPages: 5, what: "resources/list" }));
    expect(error.code).toBe("upstreamError");
    expect(error.message).toBe("resources/list: more than 5 pages");
    expect(calls).toBe(5);
  });

  it("regression: an empty-string cursor ends the list instead of fetching page one again", async () => {
    const s = server({ "": { items: [1], nextCursor: "" } });
    expect(await collectPages(s.fetchPage)).toEqual([1]);
  });

  it("exactly maxPages pages is fine", async () => {
    const s = server({ "": { items: [1], nextCursor: "2" }, "2": { items: [2], nextCursor: "3" }, "3": { items: [3] } });
    expect(await collectPages(s.fetchPage, { maxPages: 3 })).toEqual([1, 2, 3]);
  });

  it("the default cap is DEFAULT_MAX_PAGES", async () => {
    let calls = 0;
    const endless = async () => ({ items: [], nextCursor: `c${++calls}` });
    const error = await rejection(collectPages(endless));
    expect(calls).toBe(DEFAULT_MAX_PAGES);
    expect(error.message).toBe(`list: more than ${DEFAULT_MAX_PAGES} pages`);
  });

  it("a failing page propagates its error", async () => {
    const boom = new Error("network down");
    await expect(collectPages(async () => Promise.reject(boom))).rejects.toBe(boom);
  });
});
