/**
 * What OAuth costs: a whole sign-in through the API (POST …/auth with discovery and
 * dynamic registration → the authorization server's redirect → our /oauth/callback with
 * the code exchange, the commit to the vault and the connect), a new session of the same
 * principal connecting with the held credentials, and tool calls on the signed-in server
 * (the access token comes from the connection's memory, not a vault call per request).
 * The authorization server is test/fixtures/oauth-refresh-server.mjs (the SDK's server-side
 * OAuth) with one-hour tokens; the gateway is the built bundle on workerd.
 *
 *   npm run build && node bench/oauth.mjs      # OAUTH_SIGNINS=30 OAUTH_CALLS=500
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { cleanupStack, freePort, gatewayWorker, intEnv, percentile, root, runCalls, summarize, waitForPort } from "./lib.mjs";

const SIGNINS = intEnv("OAUTH_SIGNINS", 30);
const CALLS = intEnv("OAUTH_CALLS", 500);
const cleanup = cleanupStack();

async function main() {
  const port = await freePort();
  const fixture = spawn(process.execPath, [`${root}test/fixtures/oauth-refresh-server.mjs`], { env: { ...process.env, PORT: String(port), TOKEN_TTL_S: "3600" }, stdio: "ignore" });
  cleanup.add(async () => void fixture.kill("SIGKILL"));
  await waitForPort(port);
  const upstream = `http://127.0.0.1:${port}/mcp`;
  const gatewayPort = await freePort();
  const mf = new Miniflare(convertV4MiniflareOptions({ host: "127.0.0.1", port: gatewayPort, ...gatewayWorker() }));
  cleanup.add(() => mf.dispose());
  const gateway = (await mf.ready).origin;

  const api = async (method, path, body) => {
    const response = await fetch(`${gateway}${path}`, { method, headers: body ? { "content-type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined });
    return { status: response.status, body: await response.json() };
  };

  const signInMs = [];
  const reuseMs = [];
  let calledSession;
  for (let i = 0; i < SIGNINS; i++) {
    // A URL of its own per round, so each sign-in discovers, registers and exchanges anew.
    const url = `${upstream}?round=${i}`;
    const created = await api("POST", "/v1/sessions", { servers: { rt: { type: "remote", url } } });
    if (created.body.servers.rt.status !== "needs_auth") throw new Error(JSON.stringify(created.body));
    const t0 = performance.now();
    const started = await api("POST", `/v1/sessions/${created.body.id}/servers/rt/auth`);
    const authorize = await fetch(started.body.authorizationUrl, { redirect: "manual" });
    const callback = await fetch(authorize.headers.get("location"), { redirect: "manual" });
    await callback.text();
    if (callback.status !== 200) throw new Error(`callback ${callback.status}`);
    signInMs.push(performance.now() - t0);
    const t1 = performance.now();
    const again = await api("POST", "/v1/sessions", { servers: { rt: { type: "remote", url } } });
    reuseMs.push(performance.now() - t1);
    if (again.body.servers.rt.status !== "connected") throw new Error(JSON.stringify(again.body));
    calledSession = created.body.id;
  }

  const callUrl = `${gateway}/v1/sessions/${calledSession}/tools/call`;
  const call = async () => {
    const response = await fetch(callUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "rt_whoami", arguments: {} }) });
    await response.text();
    return response.ok;
  };
  await runCalls(call, 50, 1, "warm");
  const calls = summarize([await runCalls(call, CALLS, 1, "c")], 1);

  const sorted = (a) => Float64Array.from(a).sort();
  const row = (name, a) => console.log(`${name.padEnd(34)}${percentile(sorted(a), 0.5).toFixed(1).padStart(9)}${percentile(sorted(a), 0.9).toFixed(1).padStart(9)}${a.length.toString().padStart(7)}`);
  console.log(`\n${"".padEnd(34)}${"p50 ms".padStart(9)}${"p90 ms".padStart(9)}${"n".padStart(7)}`);
  row("sign-in (auth → authorize → callback)", signInMs);
  row("new session, held credentials", reuseMs);
  console.log(`${"tools/call on the signed-in server".padEnd(34)}${calls.p50.toFixed(2).padStart(9)}${calls.p90.toFixed(2).padStart(9)}${String(calls.calls).padStart(7)}`);
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => cleanup.run());
