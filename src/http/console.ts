/**
 * The web console at `GET /`: its files are Workers static assets (`console/`, bound as
 * ASSETS); the page itself goes through the Worker so it always carries a strict
 * Content-Security-Policy (scripts, styles and fetches from this origin only, images also
 * as data: URLs for tool attachments, no inline code, no framing).
 */
import { McpEdgeError } from "../core/errors.js";

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The console page from the assets binding, with the security headers added. */
export async function serveConsole(assets: Fetcher | undefined, request: Request): Promise<Response> {
  if (!assets) throw new McpEdgeError("notFound", "this deployment has no console (no ASSETS binding)");
  const page = await assets.fetch(new Request(new URL("/", request.url), { method: "GET", headers: request.headers }));
  const response = new Response(page.body, page);
  response.headers.set("content-security-policy", CONSOLE_CSP);
  response.headers.set("x-content-type-options", "nosniff");
  response.headers.set("referrer-policy", "no-referrer");
  response.headers.set("x-frame-options", "DENY");
  return response;
}
