import { afterEach, describe, expect, it, vi } from "vitest";
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
