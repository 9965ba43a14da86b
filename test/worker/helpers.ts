import { exports } from "cloudflare:workers";
import { inject } from "vitest";

export const peers = inject("peers");

export interface ApiResponse<T = any> {
  status: number;
  body: T;
}

export async function api<T = any>(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<ApiResponse<T>> {
  const response = await exports.default.fetch(
    new Request(`http://mcp-edge.test${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      ...init,
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export async function createSession(servers: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await api("POST", "/v1/sessions", { servers, ...extra });
  if (res.status !== 201) throw new Error(`create session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; servers: Record<string, { status: string; error?: string; tools?: number }> };
}

export function remote(url: string, extra: Record<string, unknown> = {}) {
  return { type: "remote", url, ...extra };
}
