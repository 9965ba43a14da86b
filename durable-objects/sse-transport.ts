/**
 * The SDK's legacy SSE client transport, made to deliver each server message once in
 * workerd. The `eventsource` polyfill calls its `onmessage` handler itself and then
 * dispatches the event; workerd's EventTarget also runs the `onmessage` attribute on
 * dispatch, so every response arrived twice ("unknown message ID" for the second, and a
 * server request would be answered twice). Moving the SDK's handler to a listener makes
 * delivery exactly once in workerd and in Node alike.
 */
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

type MessageSource = EventTarget & { onmessage: ((event: Event) => void) | null };

export class WorkerSSEClientTransport extends SSEClientTransport {
  override async start(): Promise<void> {
    await super.start();
    // `_eventSource` is the SDK's (TypeScript-private) EventSource; it exists once start() resolved.
    const source = (this as unknown as { _eventSource?: MessageSource })._eventSource;
    const handler = source?.onmessage;
    if (!source || !handler) return;
    source.onmessage = null;
    source.addEventListener("message", handler);
  }
}
