/**
 * The turn-lifecycle extension (our namespace, version 1): servers that declare the
 * same experimental capability get `_meta` with the session, turn and actor on every tool
 * call, and a notification when a turn ends. Servers without it see nothing new.
 */
export const TURN_LIFECYCLE_CAPABILITY = "io.mcp-edge/turn-lifecycle";
export const TURN_LIFECYCLE_VERSION = 1;
export const TURN_LIFECYCLE_NOTIFICATION = "notifications/io.mcp-edge/turn-lifecycle";
/** How long a turn's end waits for each server before giving that notification up. */
export const TURN_NOTIFY_TIMEOUT_MS = 1_000;

export type TurnStatus = "completed" | "cancelled" | "error";

export interface TurnContext {
  sessionId: string;
  turnId: string;
  actorId?: string;
}

/** Does an initialize result's capabilities declare the extension? */
export function declaresTurnLifecycle(capabilities: { experimental?: Record<string, unknown> } | undefined): boolean {
  const entry = capabilities?.experimental?.[TURN_LIFECYCLE_CAPABILITY];
  return typeof entry === "object" && entry !== null;
}

export function turnMeta(context: TurnContext): Record<string, string> {
  return { sessionId: context.sessionId, turnId: context.turnId, ...(context.actorId !== undefined ? { actorId: context.actorId } : {}) };
}
