import { describe, expect, it } from "vitest";
import { deployedApi as api } from "./helpers.js";

describe("a deployment without CREDENTIALS_KEY", () => {
  it("refuses to start a sign-in (and so to store credentials) with a clear 503", async () => {
    // Disabled, so the session dials nothing.
    const created = await api("POST", "/v1/sessions", { servers: { gh: { type: "remote", url: "https://mcp.example.com/mcp", enabled: false } } });
    expect(created.status).toBe(201);
    const res = await api("POST", `/v1/sessions/${created.body.id}/servers/gh/auth`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("notConfigured");
    expect(res.body.error.message).toContain("CREDENTIALS_KEY");
    expect((await api("DELETE", `/v1/sessions/${created.body.id}/servers/gh/auth`)).status).toBe(503);
  });
});
