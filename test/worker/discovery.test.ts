import { describe, expect, it } from "vitest";
import { api, createSession, peers, remote } from "./helpers.js";
import { eventually } from "../support/eventually.js";

const META = ["search_tools", "get_tool_details", "call_tool", "search_servers", "enable_server", "disable_server"];


const list = (id: string, query: string) => api("GET", `/v1/sessions/${id}/tools?${query}`);
const call = (id: string, body: Record<string, unknown>) => api("POST", `/v1/sessions/${id}/tools/call`, body);

describe("progressive discovery", () => {
  it("auto mode switches to search above 5% of the context window; no mode means full", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    const plain = await api("GET", `/v1/sessions/${id}/tools`);
    expect(plain.body.mode).toBe("full");
    const big = await list(id, "mode=auto&contextWindow=1000000");
    expect(big.body.mode).toBe("full");
    expect(big.body.tools).toEqual(plain.body.tools);
    const small = await list(id, "mode=auto&contextWindow=20000");
    expect(small.body.mode).toBe("search");
    expect(small.body.tools.map((t: any) => t.name)).toEqual(META);
  });

  it("search_tools carries the untrusted catalog header and the catalog itself", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    const res = await list(id, "mode=search");
    const search = res.body.tools.find((t: any) => t.name === "search_tools");
    expect(search.description).toContain("untrusted metadata");
    expect(search.description).toContain("everything_echo");
  });

  it("hits load for their turn, after the meta-tools; a new turn starts with none", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    const found = await api("POST", `/v1/sessions/${id}/tools/search`, { query: "echo back the input message", turn: "t1" });
    expect(found.status).toBe(200);
    expect(found.body.results[0]).toMatchObject({ name: "everything_echo", server: "everything", score: expect.any(Number) });
    expect(found.body.results[0].inputSchema).toBeUndefined();
    const t1 = await list(id, "mode=search&turn=t1");
    const names = t1.body.tools.map((t: any) => t.name);
    expect(names.slice(0, 6)).toEqual(META);
    expect(names.slice(6)).toEqual(found.body.loaded);
    expect(names).toContain("everything_echo");
    const t2 = await list(id, "mode=search&turn=t2");
    expect(t2.body.tools.map((t: any) => t.name)).toEqual(META);
  });

  it("the guard: an unloaded tool is a recoverable error; call_tool and search make it work", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    await list(id, "mode=search&turn=g1");
    const refused = await call(id, { name: "everything_get-sum", arguments: { a: 1, b: 2 }, turn: "g1" });
    expect(refused.status).toBe(200);
    expect(refused.body.isError).toBe(true);
    expect(refused.body.output).toContain("search_tools");

    const viaCallTool = await call(id, { name: "call_tool", arguments: { name: "everything_get-sum", arguments: { a: 1, b: 2 } }, turn: "g1" });
    expect(viaCallTool.body).toMatchObject({ isError: false, output: "The sum of 1 and 2 is 3." });

    const searched = await call(id, { name: "search_tools", arguments: { query: "sum of two numbers" }, turn: { id: "g1" } });
    expect(searched.body.isError).toBe(false);
    expect(JSON.parse(searched.body.output).map((r: any) => r.name)).toContain("everything_get-sum");
    const allowed = await call(id, { name: "everything_get-sum", arguments: { a: 2, b: 2 }, turn: "g1" });
    expect(allowed.body).toMatchObject({ isError: false, output: "The sum of 2 and 2 is 4." });

    // Without a turn, or in a full-mode turn, there is no guard.
    expect((await call(id, { name: "everything_get-sum", arguments: { a: 1, b: 1 } })).body.isError).toBe(false);
  });

  it("get_tool_details gives the full definition; bad meta-tool arguments are tool errors", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    const details = await call(id, { name: "get_tool_details", arguments: { name: "everything_echo" } });
    expect(JSON.parse(details.body.output)).toMatchObject({ name: "everything_echo", inputSchema: { type: "object" } });
    expect((await call(id, { name: "get_tool_details", arguments: {} })).body.isError).toBe(true);
    expect((await call(id, { name: "get_tool_details", arguments: { name: "nope" } })).body.isError).toBe(true);
    expect((await call(id, { name: "search_tools", arguments: { query: "" } })).body.isError).toBe(true);
    expect((await call(id, { name: "call_tool", arguments: { name: "search_tools" } })).body.isError).toBe(true);
    expect((await call(id, { name: "call_tool", arguments: { name: "everything_nope" } })).body.isError).toBe(true);
  });

  it("list_changed voids the hits of the turn (catalog fingerprint changed)", async () => {
    const { id } = await createSession({ fixture: remote(peers.fixture) });
    await api("POST", `/v1/sessions/${id}/tools/search`, { query: "slow wait milliseconds", turn: "c1" });
    expect((await list(id, "mode=search&turn=c1")).body.tools.length).toBeGreaterThan(6);
    await call(id, { name: "call_tool", arguments: { name: "fixture_add_tool", arguments: { name: "brand_new" } } });
    await eventually(
      () => list(id, "mode=full"),
      (res) => res.body.tools.some((t: any) => t.name === "fixture_brand_new"),
    );
    expect((await list(id, "mode=search&turn=c1")).body.tools.map((t: any) => t.name)).toEqual(META);
  });

  it("meta-tool names win over MCP tools; the MCP tool keeps a deterministic alternative", async () => {
    const { id } = await createSession({ call: remote(peers.fixture) });
    await call(id, { name: "call_add_tool", arguments: { name: "tool" } });
    const tools = await eventually(
      () => list(id, "mode=full"),
      (res) => res.body.tools.some((t: any) => t.tool === "tool"),
    );
    const displaced = tools.body.tools.find((t: any) => t.tool === "tool");
    expect(displaced.name).toMatch(/^call_tool_[0-9a-f]{8}$/);
    expect((await call(id, { name: displaced.name })).body.output).toBe("I am tool");
    // call_tool is still ours.
    expect((await call(id, { name: "call_tool", arguments: { name: displaced.name } })).body.output).toBe("I am tool");
  });

  it("dynamic servers: search, enable, and disable at the next turn (a deployment-defined server-everything)", async () => {
    const { id } = await createSession({ fixture: remote(peers.fixture) });
    const found = await call(id, { name: "search_servers", arguments: { query: "everything" } });
    expect(JSON.parse(found.body.output).map((s: any) => s.name)).toEqual(["sharedEverything"]);
    const enabled = await call(id, { name: "enable_server", arguments: { name: "sharedEverything" } });
    expect(enabled.body).toMatchObject({ isError: false });
    expect((await api("GET", `/v1/sessions/${id}`)).body.servers.sharedEverything.status).toBe("connected");
    const hits = await api("POST", `/v1/sessions/${id}/tools/search`, { query: "echo back the input", turn: "d1" });
    expect(hits.body.results[0].server).toBe("sharedEverything");
    expect((await call(id, { name: hits.body.results[0].name, arguments: { message: "dynamic" }, turn: "d1" })).body.output).toBe("Echo: dynamic");

    await list(id, "mode=search&turn=d1");
    const disabled = await call(id, { name: "disable_server", arguments: { name: "sharedEverything" }, turn: "d1" });
    expect(disabled.body.output).toContain("next turn");
    expect((await api("GET", `/v1/sessions/${id}`)).body.servers.sharedEverything.status).toBe("connected");
    await list(id, "mode=search&turn=d2");
    expect((await api("GET", `/v1/sessions/${id}`)).body.servers.sharedEverything.status).toBe("disabled");
  });

  it("bad discovery requests are 400s", async () => {
    const { id } = await createSession({ everything: remote(peers.everything) });
    expect((await list(id, "mode=bogus")).status).toBe(400);
    expect((await list(id, "mode=auto&contextWindow=-5")).status).toBe(400);
    expect((await list(id, "mode=auto&contextWindow=abc")).status).toBe(400);
    expect((await list(id, "mode=auto&colour=blue")).status).toBe(400);
    expect((await api("POST", `/v1/sessions/${id}/tools/search`, {})).status).toBe(400);
    expect((await api("POST", `/v1/sessions/${id}/tools/search`, { query: "x", limit: 50 })).status).toBe(400);
    expect((await call(id, { name: "everything_echo", arguments: { message: "x" }, turn: 5 })).status).toBe(400);
  });

  it("the order is deterministic", async () => {
    const { id } = await createSession({ everything: remote(peers.everything), fixture: remote(peers.fixture) });
    const a = await api("POST", `/v1/sessions/${id}/tools/search`, { query: "resource", limit: 20 });
    const b = await api("POST", `/v1/sessions/${id}/tools/search`, { query: "resource", limit: 20 });
    expect(b.body.results).toEqual(a.body.results);
  });
});
