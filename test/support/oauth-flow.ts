/**
 * Drives mcp-edge's own OAuth provider headlessly, the way a tool would: register a
 * public client (RFC 7591), open the authorize URL with PKCE S256, post the sign-in
 * form, follow nothing (the 302 carries the code), exchange the code at the token
 * endpoint. `send` is the Worker's fetch (in workerd) or a real `fetch` (e2e).
 */
export type Send = (request: Request) => Promise<Response>;

export const REDIRECT_URI = "http://127.0.0.1:9/callback";

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

export async function registerClient(send: Send, origin: string, name = "headless test client"): Promise<string> {
  const res = await send(
    new Request(`${origin}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] }),
    }),
  );
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

export interface AuthorizeStart {
  url: string;
  verifier: string;
  state: string;
}

export async function authorizeUrl(origin: string, clientId: string): Promise<AuthorizeStart> {
  const { verifier, challenge } = await pkcePair();
  const state = crypto.randomUUID();
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    resource: `${origin}/v1`,
  });
  return { url: `${origin}/oauth/authorize?${query}`, verifier, state };
}

export function postSignIn(send: Send, url: string, fields: Record<string, string>): Promise<Response> {
  return send(new Request(url, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" }));
}

export interface Tokens {
  /** The client the tokens were issued to (for refresh requests). */
  clientId: string;
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  token_type: string;
}

export function tokenRequest(send: Send, origin: string, fields: Record<string, string>): Promise<Response> {
  return send(new Request(`${origin}/oauth/token`, { method: "POST", body: new URLSearchParams(fields) }));
}

/** The whole flow for one principal: an access token (and refresh token) acting as it. */
export async function signIn(send: Send, origin: string, principal: string, password: string): Promise<Tokens> {
  const clientId = await registerClient(send, origin);
  const start = await authorizeUrl(origin, clientId);
  const page = await send(new Request(start.url));
  if (page.status !== 200) throw new Error(`authorize page: ${page.status} ${await page.text()}`);
  const signedIn = await postSignIn(send, start.url, { principal, password, decision: "allow" });
  const location = signedIn.headers.get("location");
  if (signedIn.status !== 302 || !location) throw new Error(`sign-in: ${signedIn.status} ${await signedIn.text()}`);
  const back = new URL(location);
  if (back.searchParams.get("state") !== start.state) throw new Error("sign-in: state not returned");
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`sign-in: no code in ${back.search}`);
  const res = await tokenRequest(send, origin, { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: start.verifier });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return { ...((await res.json()) as Omit<Tokens, "clientId">), clientId };
}
