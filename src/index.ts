/**
 * mcp-edge Worker entry: the HTTP API and the session Durable Object class.
 */
import { createApp } from "./app.js";
import type { Env } from "./env.js";

export { BridgeHub } from "../durable-objects/bridge-hub.js";
export { CredentialVault } from "../durable-objects/credential-vault.js";
export { SessionObject } from "../durable-objects/session-object.js";

const app = createApp();

export default {
  fetch(request, env, ctx) {
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
