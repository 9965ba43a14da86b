/**
 * What authentication costs per API request: `GET /v1/sessions/:id` (through the Worker
 * and the session object, no upstream server) three ways on the built Worker (workerd,
 * a direct socket), interleaved in chunks: without a token (local dev: principal `local`,
 * the provider is skipped), with a service token (SERVICE_TOKENS: provider + constant-time
 * match), and with an OAuth access token from the sign-in flow (provider: KV lookup,
 * key unwrap, props decryption). Run after `npm run build`: `node bench/auth-overhead.mjs`.
 * Knobs: BENCH_CALLS (2000), BENCH_WARMUP (500), BENCH_CHUNKS (4).
 */
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { cleanupStack, freePort, gatewayWorker, intEnv, printTable, runCalls, summarize } from "./lib.mjs";

const CALLS = intEnv("BENCH_CALLS", 2000);
const WARMUP = intEnv("BENCH_WARMUP", 500);
const CHUNKS = intEnv("BENCH_CHUNKS", 4);
const CONCURRENCY = [1, 16];
const SERVICE_TOKEN = "bench-service-token";

const cleanup = cleanupStack();
try {
  const [entryPort, port] = await Promise.all([freePort(), freePort()]);
  const worker = gatewayWorker({ unsafeDirectSockets: [{ host: "127.0.0.1", port }] });
  worker.bindings = { ...worker.bindings, SIGN_IN_USERS: "alice:bench-password", SERVICE_TOKENS: `backend:${SERVICE_TOKEN}` };
  const mf = new Miniflare(convertV4MiniflareOptions({ host: "127.0.0.1", port: entryPort, workers: [worker] }));
  cleanup.add(() => mf.dispose());
  await mf.ready;
  const base = `http://127.0.0.1:${port}`;
  const oauthToken = await signIn(base);

  const paths = { "no token (local)": undefined, "service token": SERVICE_TOKEN, "OAuth access token": oauthToken };
  const sessions = {};
  for (const [name, token] of Object.entries(paths)) {
    const res = await fetch(`${base}/v1/sessions`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: "{}" });
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    sessions[name] = (await res.json()).id;
  }
  const call = (name) => async () => {
    const token = paths[name];
    const res = await fetch(`${base}/v1/sessions/${sessions[name]}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    await res.arrayBuffer();
    return res.status === 200;
  };
  const names = Object.keys(paths);
  for (const name of names) await runCalls(call(name), WARMUP, 4, "w");
  const results = {};
  for (const c of CONCURRENCY) {
    const chunks = Object.fromEntries(names.map((n) => [n, []]));
    for (let i = 0; i < CHUNKS; i++) for (const name of names) chunks[name].push(await runCalls(call(name), Math.ceil(CALLS / CHUNKS), c, "r"));
    for (const name of names) (results[name] ??= {})[`c${c}`] = summarize(chunks[name], c);
  }
  for (const name of names) for (const c of CONCURRENCY) if (results[name][`c${c}`].calls !== Math.ceil(CALLS / CHUNKS) * CHUNKS) throw new Error(`${name}: failed calls`);
  printTable(results, names, CONCURRENCY);
} finally {
  await cleanup.run();
}

/** The authorization-code + PKCE flow with plain fetch (as test/support/oauth-flow.ts does it). */
async function signIn(base) {
  const b64url = (bytes) => Buffer.from(bytes).toString("base64url");
  const redirect = "http://127.0.0.1:9/callback";
  const reg = await (await fetch(`${base}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "bench", redirect_uris: [redirect], token_endpoint_auth_method: "none" }) })).json();
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const q = new URLSearchParams({ response_type: "code", client_id: reg.client_id, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", state: "s", resource: `${base}/v1` });
  const signed = await fetch(`${base}/oauth/authorize?${q}`, { method: "POST", body: new URLSearchParams({ principal: "alice", password: "bench-password", decision: "allow" }), redirect: "manual" });
  const code = new URL(signed.headers.get("location")).searchParams.get("code");
  const tokens = await (await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect, client_id: reg.client_id, code_verifier: verifier }) })).json();
  return tokens.access_token;
}
