/**
 * The Worker's OAuth pages: `GET /oauth/callback` (the browser returns from a remote
 * server's authorization server; the session named by `state` finishes the flow and
 * connects the server) and `GET /oauth/client-metadata.json` (mcp-edge's client ID
 * metadata document). The callback answers small HTML pages, errors with their status.
 */
import { OAuthCallbackQuery } from "../api/schemas.js";
import { clientMetadataDocument } from "../core/oauth/client-metadata.js";
import { parseState } from "../core/oauth/state.js";
import { messageOf } from "../core/errors.js";
import type { Env } from "../env.js";

function publicOrigin(env: Env, url: URL): string {
  return env.PUBLIC_URL?.replace(/\/+$/, "") || url.origin;
}

export function oauthClientMetadata(env: Env, url: URL): Response {
  return Response.json(clientMetadataDocument(publicOrigin(env, url)), { headers: { "cache-control": "public, max-age=300" } });
}

export async function oauthCallback(env: Env, url: URL): Promise<Response> {
  const query = OAuthCallbackQuery.safeParse(Object.fromEntries(url.searchParams));
  const parsed = query.success ? parseState(query.data.state) : undefined;
  // Refused as CSRF before anything is looked up: no state, or not one of ours.
  if (!query.success || !parsed) return page(400, "Sign-in refused", "The request carries no valid state: it did not come from a sign-in this service started.");
  try {
    const outcome = await env.SESSIONS.getByName(parsed.sessionId).completeAuthorization(parsed.nonce, {
      ...(query.data.code !== undefined ? { code: query.data.code } : {}),
      ...(query.data.error !== undefined ? { error: query.data.error } : {}),
    });
    if (!outcome.ok) return page(outcome.status, "Sign-in failed", outcome.message);
    const { server, status } = outcome;
    return status.status === "connected"
      ? page(200, "Signed in", `mcp-edge is signed in to "${server}" and connected (${status.tools ?? 0} tools). You can close this window.`)
      : page(200, "Signed in", `mcp-edge is signed in to "${server}"; the server is ${status.status}${status.error ? `: ${status.error}` : ""}.`);
  } catch (error) {
    console.error("oauth callback failed:", messageOf(error).slice(0, 200));
    return page(500, "Sign-in failed", "internal error");
  }
}

function page(status: number, title: string, message: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)} · mcp-edge</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer" } });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
