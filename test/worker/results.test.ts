import { beforeAll, describe, expect, it } from "vitest";
import { api, createSession, peers, remote } from "./helpers.js";

let id: string;
const call = (name: string, args: Record<string, unknown> = {}) => api("POST", `/v1/sessions/${id}/tools/call`, { name, arguments: args });

beforeAll(async () => {
  id = (await createSession({ everything: remote(peers.everything), fixture: remote(peers.fixture) }, { roots: ["file:///workspace/project"] })).id;
});

describe("result normalization against server-everything", () => {
  it("get-tiny-image: text plus a PNG data-URL attachment", async () => {
    const res = await call("everything_get-tiny-image");
    expect(res.status).toBe(200);
    expect(res.body.attachments).toHaveLength(1);
    expect(res.body.attachments[0]).toMatchObject({ mime: "image/png", url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) });
    expect(res.body.output.length).toBeGreaterThan(0);
    expect(res.body.isError).toBe(false);
  });

  it("get-resource-links: ordinary links become NAME: URI lines", async () => {
    const res = await call("everything_get-resource-links", { count: 2 });
    expect(res.status).toBe(200);
    expect(res.body.output).toMatch(/^[^\n]+: demo:\/\/resource\//m);
    expect(res.body.attachments).toEqual([]);
  });

  it("get-resource-reference: the embedded text resource lands in the output", async () => {
    const res = await call("everything_get-resource-reference", { resourceType: "Text", resourceId: 1 });
    expect(res.status).toBe(200);
    const lines = res.body.output.split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(res.body.output).toMatch(/resource/i);
  });

  it("get-structured-content: text that already holds the JSON gets no second copy", async () => {
    const res = await call("everything_get-structured-content", { location: "New York" });
    expect(res.status).toBe(200);
    expect(res.body.output).not.toContain("Structured content:");
    expect(res.body.output).toContain("temperature");
  });

  it("structured content alone becomes the output", async () => {
    const res = await call("fixture_structured_only");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.output)).toEqual({ n: 42 });
  });

  it("get-annotated-message: text and image, annotations do not leak into the output", async () => {
    const res = await call("everything_get-annotated-message", { messageType: "error", includeImage: true });
    expect(res.status).toBe(200);
    expect(res.body.output).toMatch(/error/i);
    expect(res.body.attachments).toHaveLength(1);
    expect(res.body.output).not.toContain("priority");
  });

  it("a tool whose outputSchema cannot be resolved is still listed and callable", async () => {
    const tools = await api("GET", `/v1/sessions/${id}/tools`);
    const broken = tools.body.tools.find((t: any) => t.tool === "broken_schema");
    expect(broken).toBeDefined();
    const res = await call(broken.name);
    expect(res.status).toBe(200);
    expect(res.body.output).toContain("ok");
  });

  it("a tool error is a 200 with isError, not an HTTP error", async () => {
    const res = await call("everything_get-sum", { a: "not a number", b: 1 });
    expect(res.status).toBe(200);
    expect(res.body.isError).toBe(true);
  });

  it("roots/list is answered with the session's roots", async () => {
    const res = await call("everything_get-roots-list");
    expect(res.status).toBe(200);
    expect(res.body.output).toContain("file:///workspace/project");
  });
});

describe("naming edge cases from a real server", () => {
  it("long, unicode and colliding names are all listed, ≤ 64 chars, unique, sorted and callable", async () => {
    const tools = (await api("GET", `/v1/sessions/${id}/tools`)).body.tools as Array<{ name: string; server: string; tool: string }>;
    const names = tools.map((t) => t.name);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);
    const fixture = tools.filter((t) => t.server === "fixture");
    const byTool = new Map(fixture.map((t) => [t.tool, t.name]));
    expect(byTool.get("café")).toBe("fixture_caf_");
    expect(byTool.get("a.b")).not.toBe(byTool.get("a_b"));
    expect(byTool.get("x".repeat(90))!.length).toBe(64);
    expect((await call(byTool.get("a.b")!)).body.output).toBe("dot");
    expect((await call(byTool.get("a_b")!)).body.output).toBe("underscore");
    expect((await call(byTool.get("x".repeat(90))!)).body.output).toBe("long");
    expect((await call(byTool.get("café")!)).body.output).toBe("unicode");
  });

  it("the order and names are the same on every listing", async () => {
    const a = (await api("GET", `/v1/sessions/${id}/tools`)).body.tools.map((t: any) => t.name);
    const b = (await api("GET", `/v1/sessions/${id}/tools`)).body.tools.map((t: any) => t.name);
    expect(b).toEqual(a);
  });
});

describe("resources, prompts and instructions", () => {
  it("lists and reads resources, and the synthetic resource tools work", async () => {
    const list = await api("GET", `/v1/sessions/${id}/resources`);
    expect(list.status).toBe(200);
    const doc = list.body.resources.find((r: any) => r.server === "everything");
    expect(doc).toBeDefined();
    const read = await api("POST", `/v1/sessions/${id}/resources/read`, { server: "everything", uri: doc.uri });
    expect(read.status).toBe(200);
    expect(read.body.contents[0].text).toBeTruthy();

    const viaTool = await call("read_mcp_resource", { server: "everything", uri: doc.uri });
    expect(viaTool.body).toMatchObject({ isError: false, output: read.body.contents[0].text });
    const listed = await call("list_mcp_resources", { server: "everything" });
    expect(JSON.parse(listed.body.output).map((r: any) => r.uri)).toContain(doc.uri);
    const templates = await call("list_mcp_resource_templates");
    expect(JSON.parse(templates.body.output).map((t: any) => t.uriTemplate)).toContain("demo://resource/dynamic/blob/{resourceId}");
  });

  it("a base64 blob of a textual type is read as text", async () => {
    const res = await call("read_mcp_resource", { server: "everything", uri: "demo://resource/dynamic/blob/7" });
    expect(res.body).toMatchObject({ isError: false, attachments: [] });
    expect(res.body.output).toContain("Resource 7: This is a base64 blob");
  });

  it("a binary resource outside the MIME allow-list is a clear error for the model; embedded blobs become attachments", async () => {
    const data = `data:text/plain;base64,${btoa("hello ".repeat(50))}`;
    const link = await call("everything_gzip-file-as-resource", { name: "hello.txt.gz", data, outputType: "resourceLink" });
    expect(link.status).toBe(200);
    const uri = /: (\S+)$/m.exec(link.body.output)![1]!;
    const res = await call("read_mcp_resource", { server: "everything", uri });
    expect(res.body.isError).toBe(true);
    expect(res.body.output).toContain("application/gzip is not supported");

    const embedded = await call("everything_gzip-file-as-resource", { name: "again.txt.gz", data, outputType: "resource" });
    expect(embedded.body.attachments).toEqual([{ mime: "application/gzip", url: expect.stringMatching(/^data:application\/gzip;base64,/) }]);
  });

  it("lists and gets prompts", async () => {
    const prompts = await api("GET", `/v1/sessions/${id}/prompts`);
    expect(prompts.status).toBe(200);
    const simple = prompts.body.prompts.find((p: any) => p.server === "everything" && !(p.arguments ?? []).some((a: any) => a.required));
    expect(simple).toBeDefined();
    const got = await api("POST", `/v1/sessions/${id}/prompts/get`, { server: "everything", name: simple.name });
    expect(got.status).toBe(200);
    expect(got.body.messages.length).toBeGreaterThan(0);
  });

  it("wraps each server's instructions and neutralizes a closing tag inside them", async () => {
    const res = await api("GET", `/v1/sessions/${id}/instructions`);
    expect(res.status).toBe(200);
    expect(res.body.instructions).toContain('<mcp_instructions server="fixture">');
    expect(res.body.instructions.match(/<\/mcp_instructions>/g)!.length).toBe(res.body.servers.length);
  });
});
