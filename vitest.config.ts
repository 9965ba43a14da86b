import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: "test-results/vitest.json" },
    projects: [
      {
        // Pure MCP logic in plain Node: proves it needs no Workers runtime.
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" },
      },
      {
        // The Node bridge against real stdio MCP server processes; close sequences take seconds.
        test: {
          name: "bridge",
          include: ["test/bridge/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // End to end: the built Worker on workerd with a real port, the bridge CLI as its own process, real stdio servers.
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], environment: "node", testTimeout: 60_000, hookTimeout: 120_000 },
      },
      {
        // The Worker and its Durable Objects inside workerd, against real MCP servers.
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                // Local peers live on loopback, which a deployment refuses.
                ALLOW_PRIVATE_URLS: "true",
                // Local dev: a request without a token acts as the principal "local" (every older test relies on it).
                AUTH_MODE: "local-dev",
                // A token is still checked: operators who can sign in, and a hosted backend's service token.
                SIGN_IN_USERS: "alice:alice-password,bob:bob-password",
                SERVICE_TOKENS: "backend:test-service-token",
                BRIDGE_TOKENS: "local:test-bridge-token,someone-else:other-bridge-token",
                // Encrypts OAuth credentials at rest (a secret in a deployment).
                CREDENTIALS_KEY: "test-credentials-key-0123456789abcdef0123456789",
                // Code mode: a smaller call limit keeps the limit test short.
                CODE_MODE_MAX_CALLS: "20",
                // Deployment-defined servers, off unless a session switches them on.
                MCP_SERVERS: JSON.stringify({
                  shared: { type: "remote", url: inject("peers").fixture, enabled: false },
                  sharedEverything: { type: "remote", url: inject("peers").everything, enabled: false, timeout: { request: 5000 } },
                }),
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // Code mode's suite again, on QuickJS (the `worker` project runs it on the Worker Loader).
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { ALLOW_PRIVATE_URLS: "true", AUTH_MODE: "local-dev", CODE_SANDBOX: "quickjs", CODE_MODE_MAX_CALLS: "20" } },
          }),
        ],
        test: {
          name: "worker-quickjs",
          include: ["test/worker/code-mode.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // The same Worker configured as a deployment: wrangler.toml's own vars (ALLOW_PRIVATE_URLS
        // "false", no AUTH_MODE), plus the secrets a deployment sets with `wrangler secret put`.
        // test/deployed/auth.test.ts also runs it without those secrets: it refuses to serve.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { SERVICE_TOKENS: "deployed-backend:deployed-service-token", SIGN_IN_USERS: "carol:carol-password" } },
          }),
        ],
        test: { name: "deployed", include: ["test/deployed/**/*.test.ts"], testTimeout: 30_000 },
      },
    ],
  },
});
