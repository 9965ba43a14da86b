import { describe, expect, it } from "vitest";
import { api, createSession, peers, remote } from "./helpers.js";

describe("the five server states, reached for real", () => {
  it("connected, disabled, failed, needs_auth and needs_client_registration side by side", async () => {
    const noreg = peers.fixture.replace(/\/mcp$/, "/noreg/mcp");
    const session = await createSession({
      ok: remote(peers.everything),
      off: remote(peers.everything, { enabled: false }),
      refused: remote(peers.refused),
      oauth: remote(peers.oauth),
      noreg: remote(noreg),
    });
    expect(session.servers.ok).toMatchObject({ status: "connected", tools: expect.any(Number) });
    expect(session.servers.off).toEqual({ status: "disabled" });
    expect(session.servers.refused!.status).toBe("failed");
    expect(session.servers.refused!.error).toBeTruthy();
    expect(session.servers.oauth).toMatchObject({ status: "needs_auth", error: expect.stringContaining("OAuth") });
    expect(session.servers.noreg).toMatchObject({ status: "needs_client_registration", error: expect.stringContaining("clientId") });

    // Only the connected server contributes tools (plus the synthetic resource tools, as it has resources).
    const tools = await api("GET", `/v1/sessions/${session.id}/tools`);
    expect(new Set(tools.body.tools.map((t: any) => t.server))).toEqual(new Set(["ok", "mcp"]));
  });

  it("oauth:false turns an authorization challenge into failed, without discovery", async () => {
    const session = await createSession({ oauth: remote(peers.oauth, { oauth: false }) });
    expect(session.servers.oauth).toMatchObject({ status: "failed", error: expect.stringContaining("oauth: false") });
  });

  it("a configured clientId makes a server without dynamic registration needs_auth", async () => {
    const noreg = peers.fixture.replace(/\/mcp$/, "/noreg/mcp");
    const session = await createSession({ noreg: remote(noreg, { oauth: { clientId: "pre-registered" } }) });
    expect(session.servers.noreg!.status).toBe("needs_auth");
  });

  it("disconnect → disabled, connect → connected again, DELETE removes the server", async () => {
    const session = await createSession({ everything: remote(peers.everything) });
    const base = `/v1/sessions/${session.id}/servers/everything`;
    expect((await api("POST", `${base}/disconnect`)).body).toEqual({ status: "disabled" });
    expect((await api("GET", `/v1/sessions/${session.id}/tools`)).body.tools).toEqual([]);
    const call = await api("POST", `/v1/sessions/${session.id}/tools/call`, { name: "everything_echo", arguments: { message: "x" } });
    expect(call.status).toBe(404);
    expect((await api("POST", `${base}/connect`)).body).toMatchObject({ status: "connected" });
    expect((await api("DELETE", base)).status).toBe(204);
    expect((await api("GET", `/v1/sessions/${session.id}`)).body.servers.everything).toBeUndefined();
    expect((await api("DELETE", base)).status).toBe(404);
  });

  it("PUT adds and replaces a server, then connects it", async () => {
    const session = await createSession({});
    const put = await api("PUT", `/v1/sessions/${session.id}/servers/late`, remote(peers.everything));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ status: "connected" });
    const replaced = await api("PUT", `/v1/sessions/${session.id}/servers/late`, remote(peers.refused));
    expect(replaced.body.status).toBe("failed");
  });

  it("deployment-defined servers: an entry with only enabled switches one on; no type after the merge fails alone", async () => {
    const session = await createSession({ shared: { enabled: true }, ghost: { enabled: true }, ok: remote(peers.everything) });
    expect(session.servers.shared).toMatchObject({ status: "connected" });
    expect(session.servers.sharedEverything).toEqual({ status: "disabled" });
    expect(session.servers.ghost).toMatchObject({ status: "failed", error: expect.stringContaining("type") });
    expect(session.servers.ok!.status).toBe("connected");
  });

  it("a local server whose bridge is not connected fails with 'offline'; one without bridge/server says what is missing", async () => {
    const session = await createSession({
      fs: { type: "local", bridge: "b1", server: "filesystem" },
      half: { type: "local", server: "filesystem" },
    });
    expect(session.servers.fs).toMatchObject({ status: "failed", error: expect.stringContaining("offline") });
    expect(session.servers.half).toMatchObject({ status: "failed", error: expect.stringContaining('"bridge"') });
  });
});
