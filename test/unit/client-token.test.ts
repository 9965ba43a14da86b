/**
 * The client's `token` option: `Authorization: Bearer …` on every request, including
 * the event stream; a function is asked before each request (a refreshed token is used
 * at once); a 401 is an McpEdgeApiError like any other. (Against the real Worker and a
 * token from the sign-in flow: test/worker/auth.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { McpEdgeApiError, McpEdgeClient, type FetchLike } from "../../src/client/index.js";

function recording(answer: () => Response = () => Response.json({ ok: true, version: "x" })) {
  const headers: Record<string, string>[] = [];
  const fetch: FetchLike = async (_url, init) => {
    headers.push(init.headers as Record<string, string>);
    return answer();
  };
  return { headers, fetch };
}

describe("token", () => {
  it("a string token is sent as a bearer token next to the configured headers", async () => {
    const { headers, fetch } = recording();
    await new McpEdgeClient({ baseUrl: "http://h", fetch, token: "tok-1", headers: { "x-trace": "1" } }).health();
    expect(headers[0]).toEqual({ accept: "application/json", "x-trace": "1", authorization: "Bearer tok-1" });
  });

  it("a function is asked before every request", async () => {
    const { headers, fetch } = recording();
    let n = 0;
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch, token: async () => `tok-${++n}` });
    await client.health();
    await client.health();
    expect(headers.map((h) => h.authorization)).toEqual(["Bearer tok-1", "Bearer tok-2"]);
  });

  it("no token, no Authorization header", async () => {
    const { headers, fetch } = recording();
    await new McpEdgeClient({ baseUrl: "http://h", fetch }).health();
    expect(headers[0]).toEqual({ accept: "application/json" });
  });

  it("the event stream carries it too, and its 401 is thrown, not retried", async () => {
    const { headers, fetch } = recording(() =>
      Response.json({ error: { code: "unauthorized", message: "Access token expired" } }, { status: 401, headers: { "www-authenticate": 'Bearer error="invalid_token"' } }),
    );
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch, token: "old" });
    const error = await (async () => {
      try {
        for await (const _ of client.events("ses_x")) break;
      } catch (e) {
        return e;
      }
    })();
    expect(McpEdgeApiError.is(error) && error.status === 401 && error.code === "unauthorized").toBe(true);
    expect(headers).toHaveLength(1);
    expect(headers[0]!.authorization).toBe("Bearer old");
  });
});
