/**
 * The SDK's Streamable HTTP client transport with a cheaper SSE reader. The SDK builds a
 * TextDecoderStream → EventSourceParserStream pipeline for every response stream, which
 * in workerd cost about 40% of a proxied call's CPU; this reads the stream with one loop
 * and `src/core/sse-parser.ts`, with the SDK's own semantics: resumption tokens from
 * event ids, the server's `retry`, and reconnection of a stream that ends (or breaks)
 * before its response arrived. It leans on the SDK's (TypeScript-private) members
 * `_handleSseStream`, `_scheduleReconnection`, `_abortController` and `_serverRetryMs`,
 * pinned by the SDK version in package.json and exercised by the tests.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isJSONRPCResultResponse, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
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
  _scheduleReconnection(options: StreamOptions, attempt: number): void;
}

type HandleSseStream = (stream: ReadableStream<Uint8Array> | null, options: StreamOptions, isReconnectable: boolean) => void;

export class WorkerStreamableHTTPClientTransport extends StreamableHTTPClientTransport {
  constructor(...args: ConstructorParameters<typeof StreamableHTTPClientTransport>) {
    super(...args);
    // Replaces the SDK's per-stream pipeline under the same (TypeScript-private) name,
    // so the SDK's own callers use it.
    const handle: HandleSseStream = (stream, options, isReconnectable) => {
      if (stream) void this.readSseStream(stream, options, isReconnectable);
    };
    (this as unknown as { _handleSseStream: HandleSseStream })._handleSseStream = handle;
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
      if (resumable && !receivedResponse && controller && !controller.signal.aborted) {
        internals._scheduleReconnection({ resumptionToken: lastEventId, onresumptiontoken, replayMessageId }, 0);
      }
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
