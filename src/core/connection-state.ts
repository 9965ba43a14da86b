/**
 * The state machine of one upstream connection.
 *
 *   idle ──▶ connecting | disabled (enabled:false) | failed (restored from storage) | closed
 *   connecting ──▶ connected | failed | needs_auth | needs_client_registration | disabled | closed
 *   connected ──▶ failed (closed, with the reason) | needs_auth (tokens refused mid-session)
 *                 | connecting (reconnect) | disabled | closed
 *   failed | needs_auth | needs_client_registration ──▶ connecting | disabled | closed
 *   disabled ──▶ connecting | closed
 *   closed: final (session deleted or server removed)
 *
 * `connecting` is internal: API answers wait until a connection has settled.
 */
export const ConnectionState = {
  idle: "idle",
  connecting: "connecting",
  connected: "connected",
  disabled: "disabled",
  failed: "failed",
  needsAuth: "needs_auth",
  needsClientRegistration: "needs_client_registration",
  closed: "closed",
} as const;

export type ConnectionState = (typeof ConnectionState)[keyof typeof ConnectionState];

/** The states the API reports. */
export type PublicStatus = "connected" | "disabled" | "failed" | "needs_auth" | "needs_client_registration";

const TRANSITIONS: Record<ConnectionState, readonly ConnectionState[]> = {
  idle: ["connecting", "disabled", "failed", "closed"],
  connecting: ["connected", "failed", "needs_auth", "needs_client_registration", "disabled", "closed"],
  connected: ["failed", "needs_auth", "connecting", "disabled", "closed"],
  failed: ["connecting", "disabled", "closed"],
  needs_auth: ["connecting", "disabled", "closed"],
  needs_client_registration: ["connecting", "disabled", "closed"],
  disabled: ["connecting", "closed"],
  closed: [],
};

export function canTransition(from: ConnectionState, to: ConnectionState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function toPublicStatus(state: ConnectionState): PublicStatus {
  switch (state) {
    case "connected":
    case "disabled":
    case "needs_auth":
    case "needs_client_registration":
      return state;
    default:
      return "failed";
  }
}

export interface ServerStatus {
  status: PublicStatus;
  error?: string;
  tools?: number;
}
