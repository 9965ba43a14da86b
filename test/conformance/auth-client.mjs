#!/usr/bin/env node
/**
 * A client command for MCP's conformance suite (client side, suite `auth`) that drives
 * mcp-edge's HTTP API instead of speaking MCP itself: it adds the scenario's server (the
 * URL the suite appends as the last argument) to a new session, signs in the way a
 * browser would (POST …/auth, follow the authorization URL, hand the redirect to our
 * /oauth/callback), lists the tools and calls `test-tool`. A call refused for more scope
 * (step-up) signs in again; at most MAX_AUTHORIZATIONS sign-ins per run.
 *
 *   MCP_EDGE_URL=http://127.0.0.1:8787 conformance client --command "node test/conformance/auth-client.mjs" --suite auth
 *
 * The suite sets MCP_CONFORMANCE_SCENARIO and, for pre-registration, MCP_CONFORMANCE_CONTEXT
 * ({client_id, client_secret}): those become the server's `oauth` config, as a user would
 * set it. For `auth/basic-cimd` the scenario's client ID metadata document URL is set as
 * `oauth.clientMetadataUrl` (mcp-edge's own document is only used on https deployments).
 */
const MAX_AUTHORIZATIONS = 3;
const base = (process.env.MCP_EDGE_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");

const log = (...args) => console.error("[auth-client]", ...args);

async function api(method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function oauthConfig() {
  const oauth = {};
  if (context.client_id) oauth.clientId = context.client_id;
  if (context.client_secret) oauth.clientSecret = context.client_secret;
  if (scenario === "auth/basic-cimd") oauth.clientMetadataUrl = "https://conformance-test.local/client-metadata.json";
  return Object.keys(oauth).length > 0 ? oauth : undefined;
}

let authorizations = 0;

/** POST …/auth → the authorization server's redirect → our callback. */
async function signIn(sessionId) {
  if (++authorizations > MAX_AUTHORIZATIONS) throw new Error(`gave up after ${MAX_AUTHORIZATIONS} authorizations`);
  const started = await api("POST", `/v1/sessions/${sessionId}/servers/server/auth`);
  if (started.status !== 200) throw new Error(`POST /auth: ${started.status} ${JSON.stringify(started.body)}`);
  const authorize = await fetch(started.body.authorizationUrl, { redirect: "manual" });
  const location = authorize.headers.get("location");
  if (!location) throw new Error(`authorization endpoint answered ${authorize.status} without a redirect`);
  const callback = await fetch(location, { redirect: "manual" });
  const page = await callback.text();
  if (callback.status !== 200) throw new Error(`callback: ${callback.status} ${page.replace(/<[^>]+>/g, " ").trim().slice(0, 300)}`);
}

async function main() {
  if (!serverUrl?.startsWith("http")) throw new Error("usage: auth-client.mjs <server url>");
  const oauth = oauthConfig();
  const created = await api("POST", "/v1/sessions", { servers: { server: { type: "remote", url: serverUrl, ...(oauth ? { oauth } : {}) } } });
  if (created.status !== 201) throw new Error(`create session: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id;
  try {
    let status = created.body.servers.server;
    for (;;) {
      log("server", JSON.stringify(status));
      if (status.status === "connected") {
        const tools = await api("GET", `/v1/sessions/${id}/tools`);
        log("tools", tools.body.tools?.map((t) => t.name).join(", "));
        const call = await api("POST", `/v1/sessions/${id}/tools/call`, { name: "server_test-tool", arguments: {} });
        if (call.status === 200) {
          log("called test-tool:", call.body.output);
          return;
        }
        // Refused for more scope (step-up): the server reads needs_auth; sign in again.
        if (call.body?.error?.data?.status !== "needs_auth") throw new Error(`tools/call: ${call.status} ${JSON.stringify(call.body)}`);
      } else if (status.status !== "needs_auth") {
        throw new Error(`server is ${status.status}: ${status.error ?? ""}`);
      }
      await signIn(id);
      status = (await api("GET", `/v1/sessions/${id}`)).body.servers.server;
    }
  } finally {
    await api("DELETE", `/v1/sessions/${id}`).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    log("failed:", error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
