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
                BRIDGE_TOKENS: "local:test-bridge-token,someone-else:other-bridge-token",
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
            miniflare: { bindings: { ALLOW_PRIVATE_URLS: "true", CODE_SANDBOX: "quickjs", CODE_MODE_MAX_CALLS: "20" } },
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
        // The same Worker configured as a deployment: private and loopback URLs refused.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // wrangler.toml's own setting: ALLOW_PRIVATE_URLS = "false".
          }),
        ],
        test: { name: "deployed", include: ["test/deployed/**/*.test.ts"], testTimeout: 30_000 },
      },
    ],
  },
});
