/**
 * Where the bridge dials: `{gateway}/v1/bridges/connect?bridge=<id>` with the scheme
 * turned into its WebSocket twin (http → ws, https → wss). A path on the gateway URL is
 * kept as a prefix, so a gateway mounted under `/mcp-edge` works. Parsing is a value:
 * a bad URL is reported to the user, never thrown.
 */

export const CONNECT_PATH = "/v1/bridges/connect";

const WS_SCHEMES: Readonly<Record<string, string>> = { "http:": "ws:", "https:": "wss:", "ws:": "ws:", "wss:": "wss:" };

export type ConnectUrl = { ok: true; url: URL } | { ok: false; error: string };

export function gatewayConnectUrl(gateway: string, bridgeId: string): ConnectUrl {
  let url: URL;
  try {
    url = new URL(gateway);
  } catch {
    return { ok: false, error: `--gateway ${JSON.stringify(gateway)} is not a URL (expected e.g. https://mcp-edge.example.workers.dev)` };
  }
  const scheme = WS_SCHEMES[url.protocol];
  if (scheme === undefined) return { ok: false, error: `--gateway must be an http(s) or ws(s) URL, got ${url.protocol}//` };
  if (url.username !== "" || url.password !== "") return { ok: false, error: "--gateway must not carry credentials; the bridge token goes in --token or MCP_EDGE_BRIDGE_TOKEN" };
  const out = new URL(`${scheme}//${url.host}`);
  out.pathname = `${url.pathname.replace(/\/+$/, "")}${CONNECT_PATH}`;
  out.searchParams.set("bridge", bridgeId);
  return { ok: true, url: out };
}

/** Loopback hosts, where an unencrypted ws:// connection never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
