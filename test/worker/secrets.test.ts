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
