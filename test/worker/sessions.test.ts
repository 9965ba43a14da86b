import { describe, expect, it } from "vitest";
import { api, createSession, peers, remote } from "./helpers.js";

describe("sessions against server-everything", () => {
  it("answers health", async () => {
    const res = await api("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, version: expect.any(String) });
  });

  it("creates a session, connects, lists and calls tools", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    expect(session.id).toMatch(/^ses_/);
    expect(session.servers.everything).toMatchObject({ status: "connected" });
    expect(session.servers.everything!.tools).toBeGreaterThanOrEqual(13);

    const tools = await api("GET", `/v1/sessions/${session.id}/tools`);
    expect(tools.status).toBe(200);
    const echo = tools.body.tools.find((t: any) => t.tool === "echo");
    expect(echo).toMatchObject({ name: "everything_echo", server: "everything", inputSchema: { type: "object" } });

    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "hi" } });
    expect(call.status).toBe(200);
    expect(call.body).toEqual({ output: "Echo: hi", attachments: [], metadata: {}, isError: false });

    const get = await api("GET", `/v1/sessions/${session.id}`);
    expect(get.body).toMatchObject({ id: session.id, servers: { everything: { status: "connected" } } });

    expect((await api("DELETE", `/v1/sessions/${session.id}`)).status).toBe(204);
    expect((await api("GET", `/v1/sessions/${session.id}`)).status).toBe(404);
  });
});
