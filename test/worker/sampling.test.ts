/**
 * Sampling end to end: real server-everything asks (trigger-sampling-request) over
 * Streamable HTTP, mcp-edge applies its policy and approvals, runs a real
 * `@ai-sdk/openai-compatible` provider against the test model server, and answers.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { api, createSession, peers, remote } from "./helpers.js";

const providers = (models: Record<string, unknown> = { echo: {} }, extra: Record<string, unknown> = {}) => ({
  scripted: { kind: "openai-compatible", baseURL: peers.model, apiKey: "sk-test-provider-key", models, ...extra },
});

async function samplingSession(sampling: "allow" | "ask" | "deny", extra: Record<string, unknown> = {}, models?: Record<string, unknown>, providerExtra?: Record<string, unknown>) {
  return createSession({ everything: remote(peers.everything, { sampling }) }, { providers: providers(models, providerExtra), model: "scripted/echo", ...extra });
}

const trigger = (sessionId: string, prompt = "hello there") =>
  api("POST", `/v1/sessions/${sessionId}/tools/call`, { name: "everything_trigger-sampling-request", arguments: { prompt, maxTokens: 50 } });

const approvals = (sessionId: string) => api("GET", `/v1/sessions/${sessionId}/approvals`);

async function pendingApproval(sessionId: string) {
  const listed = await eventually(() => approvals(sessionId), (r) => r.body.approvals.length > 0);
  return listed.body.approvals[0];
}

async function modelStats(model: string): Promise<{ requests: number; closedEarly: number }> {
  const stats = (await (await fetch(peers.model.replace(/\/v1$/, "/stats"))).json()) as Record<string, { requests: number; closedEarly: number }>;
  return stats[model] ?? { requests: 0, closedEarly: 0 };
}

describe("sampling", () => {
  it("allow: the server's request runs the session's model and gets its text back", async () => {
    const session = await samplingSession("allow");
    const result = await trigger(session.id);
    expect(result.status).toBe(200);
    expect(result.body.isError).toBe(false);
    expect(result.body.output).toContain("You said: Resource trigger-sampling-request context: hello there");
    expect(result.body.output).toContain('"model": "scripted/echo"');
    expect(result.body.output).toContain('"stopReason": "endTurn"');
    const status = await api("GET", `/v1/sessions/${session.id}`);
    expect(status.body.usage.everything).toMatchObject({ requests: 1, inputTokens: 12, outputTokens: 5 });
    expect(JSON.stringify(status.body)).not.toContain("sk-test-provider-key");
  });

  it("ask + once: the request waits as an approval with its metadata, then runs", async () => {
    const session = await samplingSession("ask");
    const call = trigger(session.id, "approve me");
    const approval = await pendingApproval(session.id);
    expect(approval).toMatchObject({ kind: "sampling", server: "everything" });
    expect(approval.metadata).toMatchObject({ model: "scripted/echo", maxTokens: 50, contentKinds: ["text"] });
    expect(approval.metadata.firstUserText).toContain("approve me");
    expect(approval.metadata.systemPrompt).toBe("You are a helpful test server.");
    const replied = await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "once" });
    expect(replied.status).toBe(200);
    const result = await call;
    expect(result.body.output).toContain("You said:");
    expect((await approvals(session.id)).body.approvals).toEqual([]);
    // Once is once: the next request asks again.
    const again = trigger(session.id);
    const second = await pendingApproval(session.id);
    await api("POST", `/v1/sessions/${session.id}/approvals/${second.id}`, { reply: "once" });
    expect((await again).body.isError).toBe(false);
  });

  it("ask + always: remembered for that server in this session", async () => {
    const session = await samplingSession("ask");
    const call = trigger(session.id);
    const approval = await pendingApproval(session.id);
    await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "always" });
    expect((await call).body.isError).toBe(false);
    const again = await trigger(session.id);
    expect(again.body.isError).toBe(false);
    expect(again.body.output).toContain("You said:");
  });

  it("ask + reject: the server gets JSON-RPC -1 with the reason", async () => {
    const session = await samplingSession("ask");
    const call = trigger(session.id);
    const approval = await pendingApproval(session.id);
    await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "reject" });
    const result = await call;
    expect(result.body.isError).toBe(true);
    expect(result.body.output).toMatch(/MCP error -1: .*rejected/);
    // A second answer to the same approval finds nothing.
    expect((await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "once" })).status).toBe(404);
  });

  it("ask with an approval timeout: auto-rejected", async () => {
    const session = await samplingSession("ask", { approvalTimeoutMs: 300 });
    const result = await trigger(session.id);
    expect(result.body.isError).toBe(true);
    expect(result.body.output).toMatch(/MCP error -1: .*timed out/);
    expect((await approvals(session.id)).body.approvals).toEqual([]);
  });

  it("deny from the server's policy, or from the session's mcp_sampling rules, refuses at once", async () => {
    const denied = await samplingSession("deny");
    const result = await trigger(denied.id);
    expect(result.body.isError).toBe(true);
    expect(result.body.output).toMatch(/MCP error -1: .*denied/);

    const byRule = await samplingSession("allow", { permission: { mcp_sampling: { "*": "allow", every: "deny", "every*": "deny" } } });
    const ruled = await trigger(byRule.id);
    expect(ruled.body.isError).toBe(true);
    expect(ruled.body.output).toMatch(/MCP error -1/);
  });

  it("no model at all: InvalidParams; an adapter we do not have: InternalError naming it", async () => {
    const none = await createSession({ everything: remote(peers.everything, { sampling: "allow" }) });
    const result = await trigger(none.id);
    expect(result.body.isError).toBe(true);
    expect(result.body.output).toMatch(/MCP error -32602/);

    const unknownKind = await samplingSession("allow", { model: undefined }, { echo: {} }, { kind: "no-such-adapter" });
    const failed = await trigger(unknownKind.id);
    expect(failed.body.isError).toBe(true);
    expect(failed.body.output).toMatch(/MCP error -32603.*no-such-adapter/s);
  });

  it("a model that stalls before its first chunk fails with RequestTimeout after chunkTimeout", async () => {
    const session = await samplingSession("allow", { model: "scripted/stall-first" }, { "stall-first": {} }, { chunkTimeout: 400 });
    const before = await modelStats("stall-first");
    const result = await trigger(session.id);
    expect(result.body.isError).toBe(true);
    expect(result.body.output).toMatch(/MCP error -32001/);
    // The provider call was aborted: the model server saw its stream closed.
    await eventually(() => modelStats("stall-first"), (s) => s.closedEarly > before.closedEarly);
  });

  it("maxTokens ≤ outputLimit, temperature dropped where the model takes none", async () => {
    const session = await samplingSession("allow", { model: "scripted/describe" }, { describe: { outputLimit: 20, temperature: false } });
    const result = await trigger(session.id);
    const text = JSON.parse(/"text": (".*")/.exec(result.body.output)![1]!) as string;
    const seen = JSON.parse(text);
    expect(seen.max_tokens).toBe(20);
    expect(seen.temperature).toBeNull();
    expect(seen.messages[0]).toEqual({ role: "system", content: "You are a helpful test server." });
  });

  it("approvals survive eviction and still work: the answer reaches the server over the resumed session", async () => {
    const session = await samplingSession("ask");
    const call = trigger(session.id, "evicted");
    const approval = await pendingApproval(session.id);
    const before = await modelStats("echo");
    const stub = env.SESSIONS.getByName(session.id);
    await runInDurableObject(stub, (_instance, state) => state.abort("evicted by test")).catch(() => undefined);
    await call.catch(() => undefined);
    const listed = await approvals(session.id);
    expect(listed.body.approvals.map((a: { id: string }) => a.id)).toEqual([approval.id]);
    const replied = await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "once" });
    expect(replied.status).toBe(200);
    // The model ran for the restored approval, and the queue is empty.
    await eventually(() => modelStats("echo"), (s) => s.requests > before.requests);
    expect((await approvals(session.id)).body.approvals).toEqual([]);
  });

  it("bad replies are typed 400s/404s and leave the approval pending", async () => {
    const session = await samplingSession("ask");
    const call = trigger(session.id);
    const approval = await pendingApproval(session.id);
    const wrongKind = await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "accept", content: {} });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.error.code).toBe("badRequest");
    const unknownKey = await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "once", extra: 1 });
    expect(unknownKey.status).toBe(400);
    const notJson = await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, "{");
    expect(notJson.status).toBe(400);
    expect((await api("POST", `/v1/sessions/${session.id}/approvals/apr_nope`, { reply: "once" })).status).toBe(404);
    expect((await approvals(session.id)).body.approvals).toHaveLength(1);
    await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "once" });
    expect((await call).body.isError).toBe(false);
  });

  it("deleting the server cancels its pending approval (the request ends, nothing hangs)", async () => {
    const session = await samplingSession("ask");
    const call = trigger(session.id);
    await pendingApproval(session.id);
    expect((await api("DELETE", `/v1/sessions/${session.id}/servers/everything`)).status).toBe(204);
    const result = await call;
    // The call ends one way or another: a tool error (the sampling was refused) or the server gone.
    if (result.status === 200) expect(result.body.isError).toBe(true);
    else expect(result.body.error.code).toMatch(/serverUnavailable|upstreamError|cancelled/);
    expect((await approvals(session.id)).body.approvals).toEqual([]);
  });

  it("a server the session never called a tool of gets no approval: its unprompted request is refused at once (-1 no_session)", async () => {
    const outcomes = peers.fixture.replace(/\/mcp$/, "/eager/outcomes");
    const read = async () => (await (await fetch(outcomes)).json()) as Array<{ error?: { code: number; message: string; data?: { reason?: string } } }>;
    const before = (await read()).length;
    const session = await createSession(
      { eager: remote(peers.fixture.replace(/\/mcp$/, "/eager/mcp"), { sampling: "ask" }) },
      { providers: providers(), model: "scripted/echo" },
    );
    const answered = await eventually(read, (list) => list.length > before);
    expect(answered.at(-1)!.error).toMatchObject({ code: -1, data: { reason: "no_session" } });
    expect((await approvals(session.id)).body.approvals).toEqual([]);
  });

  it("session providers must be valid: a bad provider is a 400 naming the problem", async () => {
    const bad = await api("POST", "/v1/sessions", { providers: { "bad id!": { kind: "openai-compatible", models: {} } } });
    expect(bad.status).toBe(400);
    const badModel = await api("POST", "/v1/sessions", { model: "no-slash" });
    expect(badModel.status).toBe(400);
  });
});

describe("elicitation", () => {
  const elicit = (sessionId: string) => api("POST", `/v1/sessions/${sessionId}/tools/call`, { name: "everything_trigger-elicitation-request", arguments: {} });

  it("becomes an approval with the requested schema; accepted content is validated, then returned", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const call = elicit(session.id);
    const approval = await pendingApproval(session.id);
    expect(approval.kind).toBe("elicitation");
    expect(approval.metadata.mode).toBe("form");
    expect(approval.metadata.requestedSchema.type).toBe("object");
    const required: string[] = approval.metadata.requestedSchema.required ?? [];
    // Missing required content is refused, and the approval stays.
    if (required.length > 0) {
      const refusedReply = await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "accept", content: {} });
      expect(refusedReply.status).toBe(400);
      expect((await approvals(session.id)).body.approvals).toHaveLength(1);
    }
    const content: Record<string, unknown> = {};
    for (const [key, schema] of Object.entries(approval.metadata.requestedSchema.properties as Record<string, { type: string; enum?: string[]; format?: string }>)) {
      if (!required.includes(key)) continue;
      content[key] = schema.enum ? schema.enum[0] : schema.type === "string" ? (schema.format === "email" ? "a@example.com" : "Alice") : schema.type === "boolean" ? true : 1;
    }
    const accepted = await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "accept", content });
    expect(accepted.status).toBe(200);
    const result = await call;
    expect(result.body.isError).toBe(false);
    expect(result.body.output.toLowerCase()).toContain("accept");
  });

  it("URL mode: the approval carries the URL; accept goes back without content", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const call = api("POST", `/v1/sessions/${session.id}/tools/call`, {
      name: "everything_trigger-url-elicitation",
      arguments: { url: "https://example.com/finish-sign-in", message: "Open this to finish" },
    });
    const approval = await pendingApproval(session.id);
    expect(approval.metadata).toMatchObject({ mode: "url", url: "https://example.com/finish-sign-in", message: "Open this to finish" });
    expect((await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "accept" })).status).toBe(200);
    const result = await call;
    expect(result.body.isError).toBe(false);
    expect(result.body.output.toLowerCase()).toContain("accept");
  });

  it("decline reaches the server as a decline", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const call = elicit(session.id);
    const approval = await pendingApproval(session.id);
    await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "decline" });
    expect((await call).body.output.toLowerCase()).toContain("decline");
  });
});

describe("tool permission rules", () => {
  it("deny hides tools from listings and refuses calls with 403; ask holds a call for approval", async () => {
    const session = await createSession({ everything: remote(peers.everything) }, { permission: { "everything_get-*": "deny", everything_echo: "ask" } });
    const tools = await api("GET", `/v1/sessions/${session.id}/tools`);
    const names: string[] = tools.body.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("everything_echo");
    expect(names.some((n) => n.startsWith("everything_get-"))).toBe(false);
    const denied = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_get-sum", arguments: { a: 1, b: 2 } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("forbidden");

    const call = api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "held" } });
    const approval = await pendingApproval(session.id);
    expect(approval).toMatchObject({ kind: "tool", server: "everything", metadata: { tool: "everything_echo" } });
    await api("POST", `/v1/sessions/${session.id}/approvals/${approval.id}`, { reply: "reject" });
    const rejected = await call;
    expect(rejected.body).toMatchObject({ isError: true });
    expect(rejected.body.output).toContain("rejected");

    const second = api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "always" } });
    await api("POST", `/v1/sessions/${session.id}/approvals/${(await pendingApproval(session.id)).id}`, { reply: "always" });
    expect((await second).body.output).toBe("Echo: always");
    expect((await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "free" } })).body.output).toBe("Echo: free");
  });
});
