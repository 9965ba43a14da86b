/**
 * The MCP clients connected to a session through its aggregated endpoint (`/mcp`), as
 * far as upstream servers' requests are concerned: an upstream `roots/list`,
 * `sampling/createMessage` or `elicitation/create` goes to a downstream client that
 * declared the capability, else it follows the session's own policy. Memory only: a
 * downstream MCP session does not survive eviction (it re-initializes).
 */
import type { AnySchema, SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { ClientCapabilities, Progress, ServerRequest } from "@modelcontextprotocol/sdk/types.js";

/** The client capabilities an upstream request can need. */
export type DownstreamCapability = "sampling" | "elicitation" | "roots";

export interface DownstreamRequestOptions {
  signal?: AbortSignal;
  onprogress?: (progress: Progress) => void;
}

/** One downstream MCP client, able to answer requests that upstream servers send. */
export interface DownstreamClient {
  /** What the client declared in its initialize request. */
  readonly capabilities: ClientCapabilities;
  /** Sends a request to the client and validates its answer with `resultSchema`. */
  request<T extends AnySchema>(request: ServerRequest, resultSchema: T, options?: DownstreamRequestOptions): Promise<SchemaOutput<T>>;
  /** The client is busy with a request of its own right now (its calls are what triggers upstream requests). */
  readonly busy?: boolean;
}

export class DownstreamRegistry {
  /** In registration order; the newest last. */
  private readonly clients: DownstreamClient[] = [];
  private readonly listeners = new Set<(client: DownstreamClient) => void>();

  /** Adds a client; the returned function removes it. */
  register(client: DownstreamClient): () => void {
    this.clients.push(client);
    this.changed(client);
    return () => {
      const at = this.clients.indexOf(client);
      if (at < 0) return;
      this.clients.splice(at, 1);
      this.changed(client);
    };
  }

  /**
   * The client to ask for `capability`: among those that declared it, one busy with a
   * request of its own (the one driving the session right now), else the newest.
   */
  for(capability: DownstreamCapability): DownstreamClient | undefined {
    const able = this.clients.filter((c) => c.capabilities[capability] !== undefined);
    return able.findLast((c) => c.busy) ?? able.at(-1);
  }

  get size(): number {
    return this.clients.length;
  }

  /** Called with each client that comes or goes (the roots the session offers may change). */
  onChange(listener: (client: DownstreamClient) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(client: DownstreamClient): void {
    for (const listener of this.listeners) listener(client);
  }
}
