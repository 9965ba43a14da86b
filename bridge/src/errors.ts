/**
 * Local errors of the bridge's process side. They never cross the wire as they are: the
 * link reports a server's failure as a status carrying the fields below. Config errors
 * reuse core's McpEdgeError (`invalidConfig`, `unknownKeys`) so both halves name bad keys alike.
 */

export const BridgeErrorCodes = {
  /** The command could not be started (ENOENT, EACCES, missing cwd). */
  spawnFailed: "spawnFailed",
  /** The server process ended without the bridge asking it to. */
  childExited: "childExited",
  /** send() on a transport that is not open. */
  notConnected: "notConnected",
  /** start() called twice. */
  alreadyStarted: "alreadyStarted",
  /** A line on the server's stdout exceeded the read buffer cap. */
  messageTooLarge: "messageTooLarge",
} as const;

export type BridgeErrorCode = keyof typeof BridgeErrorCodes;

const BRAND = Symbol.for("mcp-edge.bridge-error");

export class BridgeError extends Error {
  readonly [BRAND] = true;

  constructor(
    readonly code: BridgeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "BridgeError";
  }

  /** Brand check, so errors from another bundled copy still count. */
  static is(value: unknown): value is BridgeError {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }
}

/** How a server process ended. `hostShutdown` means the bridge ended it: not a failure. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last characters of stderr (DEFAULT_STDERR_TAIL_CHARS). */
  stderrTail: string;
  hostShutdown: boolean;
}

export class SpawnError extends BridgeError {
  constructor(
    message: string,
    /** The system error code, e.g. "ENOENT"; undefined when Node gave none. */
    readonly errno: string | undefined,
    /** The command line as it may be logged (redacted). */
    readonly commandLine: string,
    options?: { cause?: unknown },
  ) {
    super("spawnFailed", message, options);
    this.name = "SpawnError";
  }
}

export class ChildExitError extends BridgeError {
  constructor(
    message: string,
    readonly exit: ChildExit,
  ) {
    super("childExited", message);
    this.name = "ChildExitError";
  }
}
