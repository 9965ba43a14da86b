/**
 * The SDK's Streamable HTTP client transport with a cheaper SSE reader. The SDK builds a
 * TextDecoderStream → EventSourceParserStream pipeline for every response stream, which
 * in workerd cost about 40% of a proxied call's CPU; this reads the stream with one loop
 * and `src/core/sse-parser.ts`, with the SDK's own semantics: resumption tokens from
 * event ids, the server's `retry`, and reconnection of a stream that ends (or breaks)
 * before its response arrived. It leans on the SDK's (TypeScript-private) members
 * `_handleSseStream`, `_scheduleReconnection`, `_abortController` and `_serverRetryMs`,
 * pinned by the SDK version in package.json and exercised by the tests.
 *
 * One thing it adds: a request whose response stream ends or breaks before the answer,
 * and cannot be resumed (no event id, or every reconnection failed: the server died or
 * restarted), is failed at once with a ConnectionClosed error instead of waiting for its
 * timeout. The SDK gives the stream no request id, so send() tags each request's stream
 * through the `onresumptiontoken` callback it hands down.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { createSseParser } from "../src/core/sse-parser.js";

interface StreamOptions {
  onresumptiontoken?: (token: string) => void;
  replayMessageId?: string | number;
  resumptionToken?: string;
}

/** The SDK internals this subclass uses. */
interface TransportInternals {
  _abortController?: AbortController;
  _serverRetryMs?: number;
  _reconnectionOptions: { maxRetries: number };
  _scheduleReconnection(options: StreamOptions, attempt: number): void;
}

type HandleSseStream = (stream: ReadableStream<Uint8Array> | null, options: StreamOptions, isReconnectable: boolean) => void;

export class WorkerStreamableHTTPClientTransport extends StreamableHTTPClientTransport {
  /** The request each response stream answers, keyed by the callback send() tagged it with. */
  private readonly streamRequests = new WeakMap<object, RequestId>();

  constructor(...args: ConstructorParameters<typeof StreamableHTTPClientTransport>) {
    super(...args);
    const internals = this as unknown as TransportInternals;
    // The SDK's reconnection, plus: the last failed attempt fails the stream's request.
    const schedule = internals._scheduleReconnection.bind(this);
    internals._scheduleReconnection = (options, attempt) => {
      if (attempt >= internals._reconnectionOptions.maxRetries) this.failStreamRequest(options, "the response stream broke and could not be resumed");
      schedule(options, attempt);
    };
    // Replaces the SDK's per-stream pipeline under the same (TypeScript-private) name,
    // so the SDK's own callers use it.
    const handle: HandleSseStream = (stream, options, isReconnectable) => {
      if (stream) void this.readSseStream(stream, options, isReconnectable);
    };
    (this as unknown as { _handleSseStream: HandleSseStream })._handleSseStream = handle;
  }

  override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
    if (!isJSONRPCRequest(message)) return super.send(message, options);
    const outer = options?.onresumptiontoken;
    const tag = (token: string) => outer?.(token);
    this.streamRequests.set(tag, message.id);
    return super.send(message, { ...options, onresumptiontoken: tag });
  }

  /** Answers the stream's request (if it has one) with ConnectionClosed, once. */
  private failStreamRequest(options: StreamOptions, reason: string): void {
    const tag = options.onresumptiontoken;
    const id = tag ? this.streamRequests.get(tag) : undefined;
    if (id === undefined || !tag) return;
    this.streamRequests.delete(tag);
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: ErrorCode.ConnectionClosed, message: reason } });
  }

  private async readSseStream(stream: ReadableStream<Uint8Array>, options: StreamOptions, isReconnectable: boolean): Promise<void> {
    const internals = this as unknown as TransportInternals;
    const { onresumptiontoken, replayMessageId } = options;
    const parser = createSseParser();
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    let lastEventId: string | undefined;
    let resumable = isReconnectable;
    let receivedResponse = false;

    const reconnectIfNeeded = () => {
      const controller = internals._abortController;
      if (receivedResponse || !controller || controller.signal.aborted) return;
      if (resumable) internals._scheduleReconnection({ resumptionToken: lastEventId, onresumptiontoken, replayMessageId }, 0);
      else this.failStreamRequest(options, "the server closed the response stream before answering");
    };

    try {
      for (;;) {
        const { value, done } = await reader.read();
        const events = parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
        if (parser.retry !== undefined) internals._serverRetryMs = parser.retry;
        for (const event of events) {
          if (event.id !== undefined) {
            lastEventId = event.id;
            // A stream that carried an event id can be resumed (the SDK's "priming event").
            resumable = true;
            onresumptiontoken?.(event.id);
          }
          if (!event.data || (event.event !== "" && event.event !== "message")) continue;
          let message: JSONRPCMessage;
          try {
            message = JSONRPCMessageSchema.parse(JSON.parse(event.data));
          } catch (error) {
            this.onerror?.(error instanceof Error ? error : new Error(String(error)));
            continue;
          }
          if (isJSONRPCErrorResponse(message)) receivedResponse = true;
          if (isJSONRPCResultResponse(message)) {
            receivedResponse = true;
            if (replayMessageId !== undefined) message.id = replayMessageId;
          }
          this.onmessage?.(message);
        }
        if (done) break;
      }
      reconnectIfNeeded();
    } catch (error) {
      this.onerror?.(new Error(`SSE stream disconnected: ${error instanceof Error ? error.message : String(error)}`));
      try {
        reconnectIfNeeded();
      } catch (reconnectError) {
        this.onerror?.(new Error(`Failed to reconnect: ${reconnectError instanceof Error ? reconnectError.message : String(reconnectError)}`));
      }
    }
  }
}
