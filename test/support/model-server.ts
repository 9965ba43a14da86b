/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 whose behaviour is chosen
 * by the requested model id, so tests inside workerd (which cannot hand it a script)
 * drive it by configuring a provider's models. It streams real SSE chunks. Models:
 * - `echo`: replies "You said: <last user text>" word by word, finish `stop`.
 * - `long`: replies, finish `length`.
 * - `describe`: replies with the JSON of what it was asked (max_tokens, temperature, messages).
 * - `trickle-<n>-<ms>`: n chunks, one every ms.
 * - `stall-first`: opens the stream and sends nothing more.
 * - `stall-mid`: two chunks, then nothing.
 * - `fail`: HTTP 500; any other model: 404.
 * `GET /stats` → `{requests, closedEarly}` per model (a closed-early stream is a cancelled call).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

interface Stats {
  requests: number;
  closedEarly: number;
}

export interface ModelServer {
  /** Base URL for an OpenAI-compatible provider (ends in `/v1`). */
  baseURL: string;
  close(): Promise<void>;
}

interface ChatRequest {
  model: string;
  stream?: boolean;
  max_tokens?: number;
  temperature?: number;
  messages: Array<{ role: string; content: unknown }>;
}

function lastUserText(request: ChatRequest): string {
  const message = [...request.messages].reverse().find((m) => m.role === "user");
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) {
    return message.content
      .map((part: { type?: string; text?: string }) => (part.type === "text" ? part.text : `[${part.type}]`))
      .join(" ");
  }
  return "";
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null, usage?: Record<string, number>) {
  return `data: ${JSON.stringify({ id: "chatcmpl-model-server", object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
}

const USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const piece of req) chunks.push(piece as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startModelServer(): Promise<ModelServer> {
  const stats = new Map<string, Stats>();
  const statsOf = (model: string) => {
    let s = stats.get(model);
    if (!s) stats.set(model, (s = { requests: 0, closedEarly: 0 }));
    return s;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET" && req.url === "/stats") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Object.fromEntries(stats)));
      return;
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const request = JSON.parse(await readBody(req)) as ChatRequest;
    const model = request.model;
    const s = statsOf(model);
    s.requests++;
    let finished = false;
    res.on("close", () => {
      if (!finished) s.closedEarly++;
    });
    const known = ["echo", "long", "describe", "stall-first", "stall-mid", "fail"].includes(model) || /^trickle-\d+-\d+$/.test(model);
    if (!known) {
      finished = true;
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no model "${model}"` } }));
      return;
    }
    if (model === "fail") {
      finished = true;
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "the model server failed on purpose" } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(chunk(model, { role: "assistant", content: "" }, null));
    const words = (text: string) => text.split(/(?<= )/);
    const send = (text: string, finish: string) => {
      for (const word of words(text)) res.write(chunk(model, { content: word }, null));
      res.write(chunk(model, {}, finish, USAGE));
      finished = true;
      res.end("data: [DONE]\n\n");
    };
    if (model === "echo") return send(`You said: ${lastUserText(request)}`, "stop");
    if (model === "long") return send("This answer goes on and on", "length");
    if (model === "describe") {
      return send(JSON.stringify({ max_tokens: request.max_tokens ?? null, temperature: request.temperature ?? null, messages: request.messages }), "stop");
    }
    const trickle = /^trickle-(\d+)-(\d+)$/.exec(model);
    if (trickle) {
      const [n, ms] = [Number(trickle[1]), Number(trickle[2])];
      for (let i = 0; i < n && !res.destroyed; i++) {
        await wait(ms);
        res.write(chunk(model, { content: `w${i} ` }, null));
      }
      if (res.destroyed) return;
      res.write(chunk(model, {}, "stop", USAGE));
      finished = true;
      res.end("data: [DONE]\n\n");
      return;
    }
    if (model === "stall-mid") {
      res.write(chunk(model, { content: "Half " }, null));
      res.write(chunk(model, { content: "way " }, null));
    }
    // stall-first and stall-mid: nothing more until the client goes away.
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
