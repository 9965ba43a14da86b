/**
 * `GET /tools?mode=code` on the real Worker against a real server-everything: one
 * `execute` tool whose description declares the session's tools as TypeScript, sized by
 * the discovery budget; `execute` through `tools/call` runs the script in the sandbox;
 * `search` as the sandbox calls it.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Session } from "../../durable-objects/session.js";
import { eventually } from "../support/eventually.js";
import { api, createSession, peers, remote } from "./helpers.js";

/** The live Session inside a session's Durable Object. */
async function inSession<T>(id: string, use: (session: Session) => Promise<T>): Promise<T> {
  return runInDurableObject(env.SESSIONS.getByName(id), (instance) => use((instance as unknown as { session: Session }).session));
}

const list = (id: string, query: string) => api("GET", `/v1/sessions/${id}/tools?${query}`);
const call = (id: string, body: Record<string, unknown>) => api("POST", `/v1/sessions/${id}/tools/call`, body);

describe("code mode listing", () => {
  it("one execute tool: usage, the untrusted header and typed declarations grouped by server", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    const res = await list(id, "mode=code");
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe("code");
    expect(res.body.tools).toHaveLength(1);
    const [execute] = res.body.tools;
    expect(execute).toMatchObject({
      name: "execute",
      server: "mcp-edge",
      tool: "execute",
      inputSchema: { type: "object", properties: { code: { type: "string" }, timeoutMs: { type: "integer" } }, required: ["code"] },
    });
    const description: string = execute.description;
    expect(description).toContain("untrusted metadata");
    expect(description).toContain('// ── server "everything":');
    expect(description).toContain("everything_echo(args: {");
    // A name with "-" is a quoted member, called with brackets.
    expect(description).toContain('"everything_get-sum"(args: {');
    // get-structured-content declares an outputSchema: its result type is not unknown.
    expect(description).toMatch(/"everything_get-structured-content"\(args: \{[\s\S]*?\}\): Promise<\{/);
    expect(description).toMatch(/everything_echo\(args: \{[\s\S]*?\}\): Promise<unknown>/);
    expect(description).toContain("declare function search(");
  });

  it("over budget: names only, and the script is told to search inside the sandbox; cut with a count when even that does not fit", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    const full = await list(id, "mode=code");
    const names = await list(id, "mode=code&contextWindow=200000&usedTokens=150000");
    const description: string = names.body.tools[0].description;
    expect(names.body.mode).toBe("code");
    expect(description).not.toContain("everything_echo(args");
    expect(description).toContain("await search(query, limit?)");
    expect(description).toMatch(/everything: .*everything_echo/);
    expect(description.length).toBeLessThan(full.body.tools[0].description.length);

    const cut = await list(id, "mode=code&contextWindow=6000");
    expect(cut.body.tools[0].description).toMatch(/\(\d+ more tools not listed: use search to find them\)/);
  });

  it("a code-mode turn is not guarded: catalog tools stay callable directly", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    await list(id, "mode=code&turn=c1");
    const direct = await call(id, { name: "everything_get-sum", arguments: { a: 1, b: 2 }, turn: "c1" });
    expect(direct.body).toMatchObject({ isError: false, output: "The sum of 1 and 2 is 3." });
  });

  it("execute through tools/call: bad arguments are tool errors; a script runs in the sandbox and its outcome is text", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    const missing = await call(id, { name: "execute", arguments: {} });
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({ isError: true, output: expect.stringContaining("code") });
    const badTimeout = await call(id, { name: "execute", arguments: { code: "return 1", timeoutMs: -5 } });
    expect(badTimeout.body).toMatchObject({ isError: true, output: expect.stringContaining("timeoutMs") });
    const ran = await call(id, {
      name: "execute",
      arguments: { code: 'console.log("adding"); const sum = await tools["everything_get-sum"]({ a: 1, b: 2 }); return { sum };', timeoutMs: 10_000 },
    });
    expect(ran.body.isError).toBe(false);
    expect(ran.body.output).toContain("adding");
    expect(ran.body.output).toContain("The sum of 1 and 2 is 3.");
    const failed = await call(id, { name: "execute", arguments: { code: 'await tools.everything_echo({ message: "first" }); throw new Error("boom");' } });
    expect(failed.body).toMatchObject({ isError: true, output: expect.stringContaining("boom") });
    expect(failed.body.output).toContain("everything_echo");
  });

  it("bad query: an unknown mode is a 400 that names the field", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    const res = await list(id, "mode=script");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "badRequest", message: expect.stringContaining("mode") });
  });
});

describe("search for scripts", () => {
  it("search for scripts: ranked tools with their input schemas, nothing loaded for a turn", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    await list(id, "mode=search&turn=s1");
    const hits = await inSession(id, (session) => session.discovery.searchForScript("add two numbers sum", 3));
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(hits[0]).toEqual({
      name: "everything_get-sum",
      server: "everything",
      description: expect.any(String),
      inputSchema: expect.objectContaining({ type: "object", required: ["a", "b"] }),
    });
    const s1 = await list(id, "mode=search&turn=s1");
    expect(s1.body.tools.map((t: { name: string }) => t.name)).not.toContain("everything_get-sum");
  });
});

describe("scripts obey the session's permission rules", () => {
  it("a denied tool is neither declared nor callable from a script, and no call is made", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) }, { permission: { "everything_get-sum": "deny" } });
    const listing = await list(id, "mode=code");
    expect(listing.body.tools[0].description).not.toContain("everything_get-sum");
    const res = await api("POST", `/v1/sessions/${id}/exec`, {
      code: 'try { await callTool("everything_get-sum", { a: 1, b: 2 }); } catch (e) { return e.name + ": " + e.message; }',
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatch(/everything_get-sum/);
    expect(res.body.calls).toEqual([]);
  });

  it("an ask tool waits for its approval inside the script; a rejection is a ToolError the script can catch", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) }, { permission: { everything_echo: "ask" } });
    const run = api("POST", `/v1/sessions/${id}/exec`, {
      code: 'try { return await tools.everything_echo({ message: "held" }); } catch (e) { return "caught " + e.name; }',
    });
    const approvals: Array<{ id: string; kind: string }> = (
      await eventually(() => api("GET", `/v1/sessions/${id}/approvals`), (r) => r.body.approvals.length > 0)
    ).body.approvals;
    expect(approvals[0]?.kind).toBe("tool");
    await api("POST", `/v1/sessions/${id}/approvals/${approvals[0]!.id}`, { reply: "reject" });
    const res = await run;
    expect(res.body.result).toBe("caught ToolError");
    expect(res.body.calls).toEqual([{ name: "everything_echo", ms: expect.any(Number), isError: true }]);
  });

  it("always holds for the rest of the run only: the next run asks again", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) }, { permission: { everything_echo: "ask" } });
    const pending = () => eventually(() => api("GET", `/v1/sessions/${id}/approvals`), (r) => r.body.approvals.length > 0);
    const script = 'const a = await tools.everything_echo({ message: "one" }); const b = await tools.everything_echo({ message: "two" }); return [a, b];';
    const first = api("POST", `/v1/sessions/${id}/exec`, { code: script });
    await api("POST", `/v1/sessions/${id}/approvals/${(await pending()).body.approvals[0].id}`, { reply: "always" });
    // One approval covered both calls of this run.
    expect((await first).body.result).toEqual(["Echo: one", "Echo: two"]);
    const second = api("POST", `/v1/sessions/${id}/exec`, { code: script });
    const asked = await pending();
    expect(asked.body.approvals).toHaveLength(1);
    await api("POST", `/v1/sessions/${id}/approvals/${asked.body.approvals[0].id}`, { reply: "once" });
    const again = await pending();
    await api("POST", `/v1/sessions/${id}/approvals/${again.body.approvals[0].id}`, { reply: "once" });
    expect((await second).body.result).toEqual(["Echo: one", "Echo: two"]);
  });
});
