/**
 * Requests to the Worker as a deployment sees them: https, and the service token that
 * vitest.config.ts sets as this project's secret (a deployment refuses callers without one).
 */
import { exports } from "cloudflare:workers";

export const ORIGIN = "https://mcp-edge.test";
export const SERVICE_TOKEN = "deployed-service-token";

export async function deployedApi(method: string, path: string, body?: unknown, { token = SERVICE_TOKEN }: { token?: string | null } = {}) {
  const res = await exports.default.fetch(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any, headers: res.headers };
}
