import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { eventually } from "../support/eventually.js";
import { api, createSession, peers, remote } from "./helpers.js";

const SECRET_QUERY = "query-secret-7f3a";
const SECRET_HEADER = "header-secret-91bc";

describe("header values, tokens and URL query strings never reach logs or answers", () => {
  afterEach(() => vi.restoreAllMocks());

  it("across connect failures, auth challenges, calls and errors", async () => {
    const logged: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    }
    const headers = { Authorization: `Bearer ${SECRET_HEADER}`, "X-Api-Key": SECRET_HEADER };
    const session = await createSession({
      refused: remote(`${peers.refused}?token=${SECRET_QUERY}`, { headers }),
      oauth: remote(`${peers.oauth}?token=${SECRET_QUERY}`, { headers }),
      everything: remote(`${peers.everything}?token=${SECRET_QUERY}`, { headers }),
      sse: remote(`${peers.everythingSse}?token=${SECRET_QUERY}`, { headers }),
    });
    const answers: unknown[] = [session];
    answers.push((await api("GET", `/v1/sessions/${session.id}`)).body);
    answers.push((await api("GET", `/v1/sessions/${session.id}/tools`)).body);
    answers.push((await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "x" } })).body);
    answers.push((await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "refused_anything" })).body);
    answers.push((await api("POST", `/v1/sessions/${session.id}/servers/refused/connect`)).body);
    answers.push((await api("POST", `/v1/sessions/${session.id}/resources/read`, { server: "oauth", uri: "x://y" })).body);
    const text = JSON.stringify(answers) + "\n" + logged.join("\n");
    expect(session.servers.everything!.status).toBe("connected");
    expect(text).not.toContain(SECRET_QUERY);
    expect(text).not.toContain(SECRET_HEADER);
  });
});

const PROVIDER_KEY = "sk-provider-secret-5d2e";

describe("a model provider's API key never reaches answers, events, approvals or logs", () => {
  afterEach(() => vi.restoreAllMocks());

  it("across a sampling approval, a successful run and a provider failure", async () => {
    const logged: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    }
    const session = await createSession(
      { everything: remote(peers.everything, { sampling: "ask" }) },
      { providers: { p: { kind: "openai-compatible", baseURL: peers.model, apiKey: PROVIDER_KEY, models: { echo: {}, fail: {} } } }, model: "p/echo" },
    );
    const events = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${session.id}/events`));
    const reader = events.body!.getReader();
    const answers: unknown[] = [session];
    const call = api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 10 } });
    const pending = await eventually(() => api("GET", `/v1/sessions/${session.id}/approvals`), (r) => r.body.approvals.length > 0);
    answers.push(pending.body);
    answers.push((await api("POST", `/v1/sessions/${session.id}/approvals/${pending.body.approvals[0].id}`, { reply: "always" })).body);
    answers.push((await call).body);
    // The failing model: the provider's error comes back to the server, never with the key.
    const failing = await createSession(
      { everything: remote(peers.everything, { sampling: "allow" }) },
      { providers: { p: { kind: "openai-compatible", baseURL: peers.model, apiKey: PROVIDER_KEY, models: { fail: {} } } }, model: "p/fail" },
    );
    const failed = await api("POST", `/v1/sessions/${failing.id}/tools/call`, { name: "everything_trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 10 } });
    expect(failed.body.isError).toBe(true);
    answers.push(failed.body, (await api("GET", `/v1/sessions/${session.id}`)).body);
    // Everything the event stream said so far.
    let streamed = "";
    const decoder = new TextDecoder();
    while (!streamed.includes("sampling.finished")) {
      const { value, done } = await reader.read();
      if (done) break;
      streamed += decoder.decode(value);
    }
    await reader.cancel();
    const text = JSON.stringify(answers) + "\n" + streamed + "\n" + logged.join("\n");
    expect(text).toContain("You said:");
    expect(text).not.toContain(PROVIDER_KEY);
  });
});

describe("OAuth tokens never reach logs, answers or events", () => {
  afterEach(() => vi.restoreAllMocks());

  it("through sign-in, calls, debug, the callback page and sign-out", async () => {
    const logged: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    }
    // Tokens are read from the authorization server's own answer, by wrapping the global fetch.
    const tokens: string[] = [];
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const response = await realFetch(input, init);
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith("/token") && response.ok) {
        const body = (await response.clone().json()) as { access_token?: string; refresh_token?: string };
        for (const t of [body.access_token, body.refresh_token]) if (t) tokens.push(t);
      }
      return response;
    });
    const url = `${peers.oauth.replace("127.0.0.1", "localhost")}?secrets=1`;
    const session = await createSession({ oauth: remote(url) });
    const controller = new AbortController();
    const events = await exports.default.fetch(new Request(`http://mcp-edge.test/v1/sessions/${session.id}/events`, { signal: controller.signal }));
    const answers: unknown[] = [session];
    const started = await api("POST", `/v1/sessions/${session.id}/servers/oauth/auth`);
    answers.push(started.body);
    const authorize = await realFetch(started.body.authorizationUrl, { redirect: "manual" });
    const callback = await exports.default.fetch(new Request(authorize.headers.get("location")!));
    answers.push(await callback.text());
    answers.push((await api("GET", `/v1/sessions/${session.id}`)).body);
    answers.push((await api("GET", `/v1/sessions/${session.id}/tools`)).body);
    answers.push((await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "oauth_greet", arguments: { name: "x" } })).body);
    answers.push((await api("POST", `/v1/sessions/${session.id}/servers/oauth/debug`)).body);
    answers.push((await api("DELETE", `/v1/sessions/${session.id}/servers/oauth/auth`)).body);
    answers.push((await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "oauth_greet", arguments: { name: "x" } })).body);
    controller.abort();
    answers.push(await events.text().catch(() => ""));
    expect(tokens.length).toBeGreaterThan(0);
    const text = JSON.stringify(answers) + "\n" + logged.join("\n");
    for (const token of tokens) expect(text).not.toContain(token);
  });
});
