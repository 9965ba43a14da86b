/**
 * Code mode's shared shapes: what a script run gets (code, the tool directory, limits)
 * and what it gives back (`ExecResult`, the body of `POST /exec`). The tool side is an
 * interface, {@link ToolCaller}, so the same runners serve a session (Durable Object)
 * and, later, the bridge.
 */
import type { NormalizedResult } from "../normalize.js";

/** One entry of the `toolDirectory` a script can read: model-facing name, server, description. */
export interface ToolDirectoryEntry {
  name: string;
  server: string;
  description: string;
}

/** A tool's answer as the caller hands it over: normalized, plus `structuredContent` when the server sent one. */
export interface ToolCallResult extends NormalizedResult {
  structuredContent?: unknown;
}

/** One hit of `search(query, limit?)` inside the sandbox: enough to call the tool right. */
export interface ToolSearchHit {
  name: string;
  server: string;
  description: string;
  inputSchema?: Record<string, unknown>;
}

/** The catalog search a script can use (the session's BM25F index), for catalogs too large to declare. */
export type ToolSearch = (query: string, limit: number) => Promise<ToolSearchHit[]>;

/** What a permission check answers for one tool (issue 4's rules will decide; `ask` is not wired yet). */
export type Authorization = "allow" | "deny";

/** Where a script's tool calls go. `authorize` is the seam for the permission rules: a denied tool is never called. */
export interface ToolCaller {
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallResult>;
  authorize?(name: string): Promise<Authorization>;
}

export interface ExecCall {
  name: string;
  ms: number;
  isError: boolean;
}

export interface ExecError {
  message: string;
  stack?: string;
}

/** A script's outcome: a thrown error is `error` (HTTP 200), with the calls already made. */
export interface ExecResult {
  result?: unknown;
  logs: string[];
  calls: ExecCall[];
  error?: ExecError;
}

export const SANDBOX_KINDS = ["loader", "quickjs"] as const;
export type SandboxKind = (typeof SANDBOX_KINDS)[number];
