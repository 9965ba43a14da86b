/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1, standing in for a
 * model at the network edge: each request gets the next reply of the script (a tool
 * call or text, possibly computed from the request), streamed as real SSE
 * `chat.completion.chunk`s when the request asks for `stream: true` (tool-call
 * arguments arrive in pieces, as real providers send them). Every request is recorded.
 * A request past the end of the script is answered 500, so a loop that runs too long fails.
 *
 * A text reply can also misbehave the way real providers do: trickle (chunks spaced in
 * time), stall before the first chunk or mid-stream (the connection stays open until the
 * client goes away or `resume` settles), end with `finish_reason` "length"; and a step can
 * answer an HTTP error. Each response records whether the client closed it early.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null | Array<Record<string, unknown>>;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: Array<{ type: "function"; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  temperature?: number;
  max_tokens?: number;
  stop?: string[];
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface TextReply {
  text: string;
  /** The last chunk's finish_reason (default "stop"). */
  finishReason?: "stop" | "length";
  usage?: Usage;
  /** Streamed text is split after each space; this sends each piece this many ms after the previous one. */
  chunkDelayMs?: number;
  /** Stop after this many content chunks (0: after the role chunk, before any text) and keep the connection open… */
  stallAfterChunks?: number;
  /** …until this settles (then the rest follows) or the client closes the connection. */
  resume?: Promise<unknown>;
  /** Send nothing at all, not even the response headers, until the client goes away. */
  stallBeforeHeaders?: boolean;
}

export interface ErrorReply {
  /** Answer this HTTP status with an OpenAI-style error body. */
  httpError: number;
  message: string;
}

export type Reply = TextReply | { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> } | ErrorReply;

/** One step of a script: the reply to the request it is given (and its headers, lower-cased names). */
export type ScriptStep = (request: ChatRequest, context: { headers: Record<string, string> }) => Reply;

export interface ResponseRecord {
  /** Settles when the connection closes: `finished` is false when the client went away before the response ended. */
  closed: Promise<{ finished: boolean }>;
}

export interface ScriptedLlm {
  /** The base URL for an OpenAI-compatible provider (ends in `/v1`). */
  baseURL: string;
  /** Every chat request received since the last `script()`. */
  requests: ChatRequest[];
  /** The headers of each recorded request (lower-cased names). */
  headers: Array<Record<string, string>>;
  /** One per recorded request. */
  responses: ResponseRecord[];
  /** Replaces the script (and clears the recorded requests). */
  script(steps: ScriptStep[]): void;
  close(): Promise<void>;
}

/** The tool names a request offered the model. */
export function toolNames(request: ChatRequest | undefined): string[] {
  return (request?.tools ?? []).map((t) => t.function.name).sort();
}

/** The content of the last tool message of a request (the result the model is shown). */
export function lastToolResult(request: ChatRequest): string {
  const message = request.messages.filter((m) => m.role === "tool").at(-1);
  if (!message) return "(no tool result)";
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

let callIds = 0;

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) {
  return { id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}

const USAGE = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };

const usageOf = (usage: Usage | undefined) =>
  usage ? { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } : USAGE;

/** The pieces a streamed text arrives in: split after each space. */
export function textPieces(text: string): string[] {
  return text.split(/(?<= )/).filter((piece) => piece.length > 0);
}

/** The chunks of one streamed reply: a role chunk, content or tool-call pieces, a finish chunk with usage. */
function streamChunks(reply: Exclude<Reply, ErrorReply>, model: string): unknown[] {
  const id = `chatcmpl-${++callIds}`;
  const out: unknown[] = [chunk(id, model, { role: "assistant", content: "" }, null)];
  if ("text" in reply) {
    for (const word of textPieces(reply.text)) out.push(chunk(id, model, { content: word }, null));
    out.push(chunk(id, model, {}, reply.finishReason ?? "stop", { usage: usageOf(reply.usage) }));
    return out;
  }
  reply.toolCalls.forEach((call, index) => {
    const args = JSON.stringify(call.arguments);
    const half = Math.ceil(args.length / 2);
    out.push(chunk(id, model, { tool_calls: [{ index, id: `call_${callIds}_${index}`, type: "function", function: { name: call.name, arguments: args.slice(0, half) } }] }, null));
    out.push(chunk(id, model, { tool_calls: [{ index, function: { arguments: args.slice(half) } }] }, null));
  });
  out.push(chunk(id, model, {}, "tool_calls", { usage: USAGE }));
  return out;
}

function completion(reply: Exclude<Reply, ErrorReply>, model: string) {
  const id = `chatcmpl-${++callIds}`;
  const message =
    "text" in reply
      ? { role: "assistant", content: reply.text }
      : {
          role: "assistant",
          content: null,
          tool_calls: reply.toolCalls.map((call, index) => ({
            id: `call_${callIds}_${index}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: "text" in reply ? (reply.finishReason ?? "stop") : "tool_calls" }],
    usage: "text" in reply ? usageOf(reply.usage) : USAGE,
  };
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

/** Streams a text reply with its pacing and stalls; stops writing as soon as the client has gone. */
async function streamText(res: ServerResponse, reply: TextReply, model: string, gone: Promise<unknown>, isGone: () => boolean): Promise<void> {
  const chunks = streamChunks(reply, model);
  const [role, ...rest] = chunks;
  const finish = rest.pop();
  const write = (c: unknown) => res.write(`data: ${JSON.stringify(c)}\n\n`);
  write(role);
  for (let i = 0; i <= rest.length; i++) {
    if (reply.stallAfterChunks === i) {
      await Promise.race([reply.resume ?? new Promise(() => {}), gone]);
      if (isGone()) return;
    }
    if (i === rest.length) break;
    if (reply.chunkDelayMs && i > 0) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs)), gone]);
      if (isGone()) return;
    }
    write(rest[i]);
  }
  write(finish);
  res.end("data: [DONE]\n\n");
}

export async function startScriptedLlm(): Promise<ScriptedLlm> {
  let steps: ScriptStep[] = [];
  const requests: ChatRequest[] = [];
  const headers: Array<Record<string, string>> = [];
  const responses: ResponseRecord[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const request = JSON.parse(await readBody(req)) as ChatRequest;
    requests.push(request);
    const requestHeaders = headersOf(req);
    headers.push(requestHeaders);
    let gone = false;
    const closed = new Promise<{ finished: boolean }>((resolve) => {
      res.on("close", () => {
        gone = !res.writableFinished;
        resolve({ finished: res.writableFinished });
      });
    });
    responses.push({ closed });
    const step = steps[requests.length - 1];
    if (!step) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `the script has no reply for request ${requests.length}` } }));
      return;
    }
    const reply = step(request, { headers: requestHeaders });
    if ("httpError" in reply) {
      res.writeHead(reply.httpError, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: reply.message, type: "server_error" } }));
      return;
    }
    if (!request.stream) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completion(reply, request.model)));
      return;
    }
    if ("text" in reply && reply.stallBeforeHeaders) {
      await closed;
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    if ("text" in reply) {
      await streamText(res, reply, request.model, closed, () => gone);
      return;
    }
    for (const c of streamChunks(reply, request.model)) res.write(`data: ${JSON.stringify(c)}\n\n`);
    res.end("data: [DONE]\n\n");
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
    requests,
    headers,
    responses,
    script(next) {
      steps = next;
      requests.length = 0;
      headers.length = 0;
      responses.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
