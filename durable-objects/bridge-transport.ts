/**
 * The MCP SDK `Transport` for a server that runs on a bridge: messages go to the
 * principal's BridgeHub over RPC (in order) and come back through the session object's
 * `bridgeDeliver`. The hub closes the channel at once when the bridge goes away, so
 * in-flight requests fail immediately with the reason instead of timing out.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { BridgeHub, OpenResult } from "./bridge-hub.js";

export class BridgeOpenError extends Error {
  constructor(
    message: string,
    readonly offline: boolean,
  ) {
    super(message);
    this.name = "BridgeOpenError";
  }
}

export class BridgeChannelTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Roots the bridge announced for this server (its configured root or cwd). */
  roots: string[] = [];
  /** Why the channel closed, when the hub or the bridge closed it. */
  closeReason: string | undefined;
  private sending: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly hub: DurableObjectStub<BridgeHub>,
    readonly channel: string,
    private readonly session: string,
    private readonly bridge: string,
    private readonly server: string,
    private readonly registry: Map<string, BridgeChannelTransport>,
  ) {}

  async start(): Promise<void> {
    this.registry.set(this.channel, this);
    const result: OpenResult = await this.hub.open(this.channel, this.session, this.bridge, this.server);
    if (!result.ok) {
      this.registry.delete(this.channel);
      const exit = result.exit;
      const detail = exit ? ` (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`}${exit.stderr.trim() ? `; stderr: ${exit.stderr.trim().slice(-1000)}` : ""})` : "";
      throw new BridgeOpenError(`${result.error}${detail}`, result.offline === true);
    }
    this.roots = result.roots;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error(this.closeReason ?? "bridge channel closed"));
    const next = this.sending.then(() => this.hub.send(this.channel, message as unknown as Record<string, unknown>));
    this.sending = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.markClosed(undefined);
    await this.hub.close(this.channel).catch(() => undefined);
  }

  /** A message from the server, relayed by the hub. */
  deliver(message: JSONRPCMessage): void {
    if (!this.closed) this.onmessage?.(message);
  }

  /** The hub closed the channel (the bridge went offline, or the process ended). */
  closedByHub(reason: string): void {
    if (!this.closed) this.markClosed(reason);
  }

  private markClosed(reason: string | undefined): void {
    this.closed = true;
    this.closeReason = reason;
    if (this.registry.get(this.channel) === this) this.registry.delete(this.channel);
    this.onclose?.();
  }
}
