/**
 * The web console as the Worker serves it: `GET /` is HTML with a strict
 * Content-Security-Policy, its script and stylesheet are the static assets beside it, and
 * none of the three holds a secret-looking value, inline code the policy would block, or a
 * way to turn server-sent text into HTML.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

async function worker(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`http://mcp-edge.test${path}`, init));
}

async function asset(path: string): Promise<Response> {
  if (!env.ASSETS) throw new Error("no ASSETS binding");
  return env.ASSETS.fetch(new Request(`http://mcp-edge.test${path}`));
}

/** `default-src 'none'; script-src 'self'` → {"default-src": ["'none'"], …}. */
function directives(policy: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of policy.split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out[name] = values;
  }
  return out;
}

async function consoleFiles(): Promise<{ html: string; js: string; css: string }> {
  const [html, js, css] = await Promise.all([worker("/"), asset("/console.js"), asset("/console.css")]);
  return { html: await html.text(), js: await js.text(), css: await css.text() };
}

describe("GET /", () => {
  it("answers the console page with a strict Content-Security-Policy", async () => {
    const res = await worker("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const policy = res.headers.get("content-security-policy") ?? "";
    const csp = directives(policy);
    expect(csp["default-src"]).toEqual(["'none'"]);
    expect(csp["script-src"]).toEqual(["'self'"]);
    expect(csp["style-src"]).toEqual(["'self'"]);
    expect(csp["connect-src"]).toEqual(["'self'"]);
    expect(csp["img-src"]).toEqual(["'self'", "data:"]);
    expect(csp["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp["base-uri"]).toEqual(["'none'"]);
    expect(csp["form-action"]).toEqual(["'none'"]);
    expect(policy).not.toMatch(/unsafe-|\*|https?:/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await res.text();
    expect(html).toContain("<title>mcp-edge console</title>");
  });

  it("only a GET: other methods on / are a typed 404", async () => {
    const res = await worker("/", { method: "POST" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "notFound", message: "no route for POST /" } });
  });

  it("the page loads its script and stylesheet from this origin, with nothing inline", async () => {
    const { html } = await consoleFiles();
    expect(html).toContain('<script type="module" src="/console.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/console.css">');
    // The policy would block inline code: the page must not depend on any.
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="/console.js">']);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    const [js, css] = await Promise.all([asset("/console.js"), asset("/console.css")]);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/javascript/);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
  });

  it("holds no secret-looking values", async () => {
    const { html, js, css } = await consoleFiles();
    const all = `${html}\n${js}\n${css}`;
    for (const pattern of [
      /sk-[A-Za-z0-9]{16,}/, // provider API keys
      /Bearer\s+[A-Za-z0-9._~+/-]{8,}/, // bearer tokens
      /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, // JWTs
      /\b[a-f0-9]{32,}\b/i, // long hex secrets
      /["']?(api[_-]?key|apikey|token|secret|password|authorization|client[_-]?secret)["']?\s*[:=]\s*["'][^"']{4,}["']/i, // key: "value"
      /bridge-token/, // the bridge tokens of npm start and the tests
    ]) {
      expect(all, String(pattern)).not.toMatch(pattern);
    }
  });

  it("never turns text from the gateway into HTML or code", async () => {
    const { js } = await consoleFiles();
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(\s*["'`]/);
    // It asks for statuses, tools and events, never for a server's configuration.
    expect(js).not.toMatch(/\.headers\b(?!\s*:)|apiKey|clientSecret/);
  });

  it("is small: page, script and stylesheet under 48 KiB together (uncompressed)", async () => {
    const { html, js, css } = await consoleFiles();
    const bytes = new TextEncoder().encode(html + js + css).length;
    expect(bytes).toBeLessThan(48 * 1024);
  });
});
