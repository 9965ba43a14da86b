/**
 * mcp-edge Worker entry: the HTTP API behind its authentication gate, and the Durable Object classes.
 */
import { createApp } from "./app.js";
import { createGate } from "./auth/gate.js";
import type { Env } from "./env.js";

export { BridgeHub } from "../durable-objects/bridge-hub.js";
export { CredentialVault } from "../durable-objects/credential-vault.js";
export { SessionObject } from "../durable-objects/session-object.js";

const gate = createGate(createApp());

export default {
  fetch(request, env, ctx) {
    return gate.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
