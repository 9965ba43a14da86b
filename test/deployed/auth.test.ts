/**
 * The Worker under wrangler.toml's own settings (no AUTH_MODE: a deployment). With the
 * secrets a deployment sets (this project's bindings), every API request needs a token;
 * without them (the same Worker and bindings, the two secrets removed) it refuses to
 * serve at all, rather than serve openly.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { signIn } from "../support/oauth-flow.js";
import { deployedApi, ORIGIN } from "./helpers.js";
import { exports } from "cloudflare:workers";

const bare = { ...(env as unknown as Env), SERVICE_TOKENS: undefined, SIGN_IN_USERS: undefined };

describe("a deployment without authentication configured", () => {
  it("wrangler.toml sets no AUTH_MODE (local dev mode exists only in the local dev config)", () => {
    expect((env as unknown as Env).AUTH_MODE).toBeUndefined();
  });

  it.each([
    ["GET", "/health"],
    ["GET", "/v1/openapi.json"],
    ["POST", "/v1/sessions"],
    ["GET", "/v1/bridges"],
    ["GET", "/v1/sessions/ses_0000000000000000000000000a"],
    ["GET", "/oauth/authorize"],
    ["POST", "/oauth/token"],
  ])("refuses %s %s with a 503 that says what to set", async (method, path) => {
    const res = await worker.fetch(new Request(`${ORIGIN}${path}`, { method }) as Parameters<typeof worker.fetch>[0], bare, createExecutionContext());
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("authNotConfigured");
    expect(body.error.message).toMatch(/SIGN_IN_USERS.*SERVICE_TOKENS/);
  });

  it("AUTH_MODE set to anything but oauth is refused too", async () => {
    const res = await worker.fetch(new Request(`${ORIGIN}/v1/sessions`, { method: "POST" }) as Parameters<typeof worker.fetch>[0], { ...(env as unknown as Env), AUTH_MODE: "off" }, createExecutionContext());
    expect(res.status).toBe(503);
  });
});

describe("a deployment with authentication configured", () => {
  it.each([
    ["POST", "/v1/sessions"],
    ["GET", "/v1/bridges"],
    ["GET", "/v1/sessions/ses_0000000000000000000000000a"],
    ["GET", "/v1/sessions/ses_0000000000000000000000000a/events"],
    // The session's MCP endpoint (another branch builds it) is under the same protected resource.
    ["POST", "/v1/sessions/ses_0000000000000000000000000a/mcp"],
  ])("%s %s without a token is a 401 with a Bearer challenge", async (method, path) => {
    const res = await deployedApi(method, path, method === "POST" ? {} : undefined, { token: null });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/v1"`);
  });

  it("a bad token is a 401 invalid_token", async () => {
    const res = await deployedApi("POST", "/v1/sessions", {}, { token: "not-a-token" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("the service token works, and a token from the sign-in flow works", async () => {
    const created = await deployedApi("POST", "/v1/sessions", {});
    expect(created.status).toBe(201);
    expect((await deployedApi("GET", `/v1/sessions/${created.body.id}`)).status).toBe(200);
    const carol = await signIn((request) => exports.default.fetch(request), ORIGIN, "carol", "carol-password");
    expect((await deployedApi("GET", `/v1/sessions/${created.body.id}`, undefined, { token: carol.access_token })).status).toBe(404);
    const hers = await deployedApi("POST", "/v1/sessions", {}, { token: carol.access_token });
    expect(hers.status).toBe(201);
  });

  it("public routes need no token", async () => {
    expect((await deployedApi("GET", "/health", undefined, { token: null })).status).toBe(200);
    expect((await deployedApi("GET", "/v1/openapi.json", undefined, { token: null })).status).toBe(200);
  });
});
