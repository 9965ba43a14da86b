import { describe, expect, it } from "vitest";
import { api } from "./helpers.js";

describe("bridge routes", () => {
  it("GET /v1/bridges lists the connected bridges (none yet)", async () => {
    const res = await api("GET", "/v1/bridges");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ bridges: [] });
  });

  it("connecting needs a WebSocket upgrade, a valid token and a valid bridge id", async () => {
    const upgrade = { Upgrade: "websocket" };
    expect((await api("GET", "/v1/bridges/connect?bridge=b1")).status).toBe(400);
    const noToken = await api("GET", "/v1/bridges/connect?bridge=b1", undefined, { headers: upgrade });
    expect(noToken.status).toBe(401);
    expect(noToken.body.error.code).toBe("unauthorized");
    const badToken = await api("GET", "/v1/bridges/connect?bridge=b1", undefined, { headers: { ...upgrade, Authorization: "Bearer nope" } });
    expect(badToken.status).toBe(401);
    const badId = await api("GET", "/v1/bridges/connect?bridge=../x", undefined, { headers: { ...upgrade, Authorization: "Bearer test-bridge-token" } });
    expect(badId.status).toBe(400);
  });
});
