/**
 * A small MCP server of ours for the soak (bench/soak.mjs): the MCP SDK's McpServer over
 * Streamable HTTP, stateful, with two echo tools. GET /stats answers how many MCP sessions
 * it holds open and how many it has closed, so the soak can see that deleting a gateway
 * session also ends its upstream session.
 *
 *   PORT=… node bench/echo-server.mjs      (127.0.0.1 only; PORT 0 or unset: any free port,
 *                                           printed as "echo-server listening on PORT")
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function buildServer() {
  const server = new McpServer({ name: "soak-echo", version: "1.0.0" });
  server.registerTool("echo", { description: "Answers with the message", inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: "text", text: `Echo: ${message}` }],
  }));
  server.registerTool("reverse", { description: "Answers with the message reversed", inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: "text", text: [...message].reverse().join("") }],
  }));
  return server;
}

/** Open MCP sessions by id. */
const transports = new Map();
let closed = 0;

const http = createServer(async (req, res) => {
  if (req.url === "/stats" && req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ open: transports.size, closed }));
    return;
  }
  if (!req.url?.startsWith("/mcp")) {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  let body;
  try {
    body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
  } catch {
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }));
    return;
  }
  const sid = req.headers["mcp-session-id"];
  let transport = typeof sid === "string" ? transports.get(sid) : undefined;
  if (!transport) {
    if (sid) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
      return;
    }
    const fresh = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, fresh),
      // DELETE from the client: forget the session (its server goes with the transport).
      onsessionclosed: (id) => {
        if (transports.delete(id)) closed++;
      },
    });
    transport = fresh;
    await buildServer().connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
http.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => console.error(`echo-server listening on ${http.address().port}`));
