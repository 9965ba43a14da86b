/**
 * The client at its network edge, with a fetch double that records each request and
 * answers what a test gives it: URLs, query strings, bodies, headers, empty answers and
 * every way an answer can be an error. (Against the real Worker: test/worker/client.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { McpEdgeApiError, McpEdgeClient, type FetchLike } from "../../src/client/index.js";

interface Recorded {
  url: string;
  init: RequestInit;
}

function double(answer: () => Response = () => Response.json({})) {
  const requests: Recorded[] = [];
  const fetch: FetchLike = async (url, init) => {
    requests.push({ url, init });
    return answer();
  };
  return { requests, fetch };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("requests", () => {
  it("builds URLs from the base (trailing slashes and a path prefix kept right)", async () => {
    const { requests, fetch } = double();
    const client = new McpEdgeClient({ baseUrl: "https://edge.example/prefix//", fetch });
    await client.getSession("ses_x");
    expect(requests[0]!.url).toBe("https://edge.example/prefix/v1/sessions/ses_x");
  });

  it("encodes ids and names as path segments", async () => {
    const { requests, fetch } = double();
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch });
    await client.connectServer("ses/..", "a b?#");
    expect(requests[0]!.url).toBe("http://h/v1/sessions/ses%2F../servers/a%20b%3F%23/connect");
    expect(requests[0]!.init.method).toBe("POST");
  });

  it("OAuth methods: POST/DELETE …/auth and POST …/debug", async () => {
    const { requests, fetch } = double(() => Response.json({ authorizationUrl: "https://as.example/authorize?x=1" }));
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch });
    expect(await client.authorizeServer("s", "gh")).toEqual({ authorizationUrl: "https://as.example/authorize?x=1" });
    await client.signOutServer("s", "gh");
    await client.debugServer("s", "gh");
    expect(requests.map((r) => `${r.init.method} ${r.url}`)).toEqual([
      "POST http://h/v1/sessions/s/servers/gh/auth",
      "DELETE http://h/v1/sessions/s/servers/gh/auth",
      "POST http://h/v1/sessions/s/servers/gh/debug",
    ]);
  });

  it("listTools: only the options given, as a query string", async () => {
    const { requests, fetch } = double(() => Response.json({ mode: "full", tools: [] }));
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch });
    await client.listTools("s");
    await client.listTools("s", { mode: "auto", contextWindow: 128_000, usedTokens: 0, turn: "t 1" });
    expect(requests.map((r) => r.url)).toEqual(["http://h/v1/sessions/s/tools", "http://h/v1/sessions/s/tools?mode=auto&contextWindow=128000&usedTokens=0&turn=t+1"]);
  });

  it("sends JSON bodies with content-type, default headers and the signal", async () => {
    const { requests, fetch } = double();
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch, headers: { "x-trace": "1" } });
    const controller = new AbortController();
    await client.callTool("s", { name: "a_b", arguments: { n: 1 }, turn: { id: "t", actorId: "me" } }, { signal: controller.signal });
    const { init } = requests[0]!;
    expect(init.method).toBe("POST");
    expect(JSON.parse(init.body as string)).toEqual({ name: "a_b", arguments: { n: 1 }, turn: { id: "t", actorId: "me" } });
    expect(init.headers).toEqual({ accept: "application/json", "content-type": "application/json", "x-trace": "1" });
    expect(init.signal).toBe(controller.signal);
  });

  it("sends no body (and no content-type) where the route takes none", async () => {
    const { requests, fetch } = double(() => new Response(null, { status: 204 }));
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch });
    await client.deleteSession("s");
    expect(requests[0]!.init.body).toBeUndefined();
    expect(requests[0]!.init.headers).toEqual({ accept: "application/json" });
  });

  it("createSession sends {} when given nothing", async () => {
    const { requests, fetch } = double(() => Response.json({ id: "ses_x", servers: {} }, { status: 201 }));
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch });
    expect(await client.createSession()).toEqual({ id: "ses_x", servers: {} });
    expect(requests[0]!.init.body).toBe("{}");
  });
});

describe("answers", () => {
  it("204 resolves to undefined", async () => {
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch: double(() => new Response(null, { status: 204 })).fetch });
    await expect(client.deleteServer("s", "n")).resolves.toBeUndefined();
  });

  it("an API error body becomes McpEdgeApiError with status, code, message and data", async () => {
    const body = { error: { code: "unknownKeys", message: 'server "s": unknown keys: bogus', data: { unknownKeys: ["bogus"] } } };
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch: double(() => Response.json(body, { status: 400 })).fetch });
    const error = await caught(client.putServer("s", "n", { type: "remote", url: "http://x" }));
    expect(error).toBeInstanceOf(McpEdgeApiError);
    expect(error).toMatchObject({ name: "McpEdgeApiError", status: 400, code: "unknownKeys", message: body.error.message, data: body.error.data });
  });

  it("an error without the API's body (a proxy's page) is httpError with the status", async () => {
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch: double(() => new Response("<html>Bad gateway</html>", { status: 502, statusText: "Bad Gateway" })).fetch });
    const error = await caught(client.health());
    expect(error).toMatchObject({ status: 502, code: "httpError", message: "HTTP 502 Bad Gateway", data: { body: "<html>Bad gateway</html>" } });
  });

  it("a JSON error that is not the API's shape is httpError too", async () => {
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch: double(() => Response.json({ error: "nope" }, { status: 500 })).fetch });
    expect(await caught(client.health())).toMatchObject({ status: 500, code: "httpError" });
  });

  it("a success that is not JSON is httpError", async () => {
    const client = new McpEdgeClient({ baseUrl: "http://h", fetch: double(() => new Response("ok", { status: 200 })).fetch });
    expect(await caught(client.health())).toMatchObject({ status: 200, code: "httpError", message: "the answer is not JSON" });
  });

  it("fetch's own failures pass through untouched", async () => {
    const failure = new TypeError("fetch failed");
    const client = new McpEdgeClient({
      baseUrl: "http://h",
      fetch: async () => {
        throw failure;
      },
    });
    expect(await caught(client.health())).toBe(failure);
  });
});

describe("McpEdgeApiError.is", () => {
  it("recognizes errors of another bundled copy by their brand, and nothing else", () => {
    expect(McpEdgeApiError.is(new McpEdgeApiError(404, "notFound", "x"))).toBe(true);
    const foreign = Object.assign(new Error("x"), { [Symbol.for("mcp-edge.api-error")]: true, status: 404, code: "notFound" });
    expect(McpEdgeApiError.is(foreign)).toBe(true);
    expect(McpEdgeApiError.is(new Error("x"))).toBe(false);
    expect(McpEdgeApiError.is({ status: 404, code: "notFound" })).toBe(false);
    expect(McpEdgeApiError.is(null)).toBe(false);
  });
});
