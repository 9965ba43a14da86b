/**
 * Code mode through the real Worker and a session with a real server-everything: the
 * shared suite (test/support/code-mode-cases.ts) on the deployment's sandbox. The
 * `worker` project has the LOADER binding, so it runs the Worker Loader; the
 * `worker-quickjs` project sets CODE_SANDBOX=quickjs and runs this same file on QuickJS.
 */
import { env, exports } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpEdgeClient } from "../../src/client/index.js";
import { DEFAULT_MAX_CALLS, DEFAULT_MAX_OUTPUT_BYTES, MAX_CODE_CHARS } from "../../src/core/codemode/limits.js";
import { CODE_MODE_CASES, type CaseContext, type ExecOutcome } from "../support/code-mode-cases.js";
import { api, createSession, peers, remote } from "./helpers.js";

const sandbox = env.CODE_SANDBOX === "quickjs" || !env.LOADER ? "quickjs" : "loader";
const maxCalls = Number(env.CODE_MODE_MAX_CALLS) || DEFAULT_MAX_CALLS;

let id: string;

beforeAll(async () => {
  const session = await createSession({ everything: remote(peers.everything) });
  expect(session.servers.everything?.status).toBe("connected");
  id = session.id;
});

afterAll(async () => {
  await api("DELETE", `/v1/sessions/${id}`);
});

async function exec(code: string, timeoutMs?: number): Promise<ExecOutcome> {
  const res = await api<ExecOutcome>("POST", `/v1/sessions/${id}/exec`, { code, ...(timeoutMs ? { timeoutMs } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe(`the shared suite on the ${sandbox} sandbox (workerd)`, () => {
  const ctx: CaseContext = { exec, reachableUrl: peers.everything, maxCalls, maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES };
  for (const testCase of CODE_MODE_CASES) {
    // Local workerd does not enforce a loaded Worker's CPU limit: an endless loop there would hang the runtime.
    const run = sandbox === "loader" && testCase.needsCpuLimit ? it.skip : it;
    run(testCase.name, () => testCase.run(ctx), 90_000);
  }
});

describe("POST /exec as an API", () => {
  it(`runs on the deployment's sandbox (${sandbox}: fetch exists, blocked, only in a Worker Loader isolate)`, async () => {
    const out = await exec(`return typeof fetch;`);
    expect(out.result).toBe(sandbox === "loader" ? "function" : "undefined");
  });

  it.each([
    ["no body", undefined],
    ["no code", {}],
    ["empty code", { code: "" }],
    ["code that is not a string", { code: 42 }],
    ["an unknown key", { code: "return 1", language: "python" }],
    ["timeoutMs 0", { code: "return 1", timeoutMs: 0 }],
    ["timeoutMs over 300000", { code: "return 1", timeoutMs: 300_001 }],
    ["timeoutMs not an integer", { code: "return 1", timeoutMs: 1.5 }],
    ["code over 1 MiB", { code: `return 1;${" ".repeat(MAX_CODE_CHARS)}` }],
  ])("a bad body (%s) is a 400 with a typed error", async (_what, body) => {
    const res = await api("POST", `/v1/sessions/${id}/exec`, body);
    expect(res.status).toBe(400);
    expect(["badRequest", "unknownKeys"]).toContain(res.body.error.code);
    expect(res.body.error.message).toBeTruthy();
  });

  it("an unknown session is a 404", async () => {
    const res = await api("POST", "/v1/sessions/ses_doesnotexist000000000000/exec", { code: "return 1" });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("sessionNotFound");
  });

  it("the typed client's exec() returns the result, and a script error is a result, not an exception", async () => {
    const client = new McpEdgeClient({ baseUrl: "http://mcp-edge.test", fetch: (input, init) => exports.default.fetch(new Request(input, init)) });
    const ok = await client.exec(id, { code: `return await tools.everything_echo({ message: "via client" });` });
    expect(ok).toEqual({ result: "Echo: via client", logs: [], calls: [{ name: "everything_echo", ms: expect.any(Number), isError: false }] });
    const failed = await client.exec(id, { code: `throw new TypeError("nope")`, timeoutMs: 5_000 });
    expect(failed.error?.message).toBe("TypeError: nope");
  });

  it("tool calls from a script show on the session's event stream like direct calls", async () => {
    const res = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${id}/events`));
    const reader = res.body!.getReader();
    await exec(`await tools["everything_get-sum"]({ a: 1, b: 2 });`);
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: tool.finished")) text += decoder.decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toMatch(/"name":"everything_get-sum"/);
  });
});
