/**
 * The benchmark's pass-through floor: the cheapest Worker + Durable Object shape an
 * MCP gateway can have. The Worker routes every request to one Durable Object (as the
 * gateway routes a session's requests to its session object); the object forwards the
 * request body to the upstream MCP endpoint with the MCP headers and returns the
 * upstream response as is. No parsing, no SDK, no storage: what is left is the cost of
 * the two hops (Worker → DO, DO → upstream) on workerd.
 *
 * Bindings: PASSTHROUGH (Durable Object namespace of `PassThrough`), UPSTREAM_URL.
 */
import { DurableObject } from "cloudflare:workers";

const FORWARDED_HEADERS = ["accept", "content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id"];
const RETURNED_HEADERS = ["content-type", "mcp-session-id", "mcp-protocol-version", "cache-control"];

export class PassThrough extends DurableObject {
  async fetch(request) {
    const headers = new Headers();
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    const upstream = await fetch(this.env.UPSTREAM_URL, {
      method: request.method,
      headers,
      body: hasBody ? await request.arrayBuffer() : undefined,
    });
    const out = new Headers();
    for (const name of RETURNED_HEADERS) {
      const value = upstream.headers.get(name);
      if (value !== null) out.set(name, value);
    }
    return new Response(upstream.body, { status: upstream.status, headers: out });
  }
}

export default {
  async fetch(request, env) {
    return env.PASSTHROUGH.getByName("bench").fetch(request);
  },
};
