import { describe, expect, it } from "vitest";
import { canTransition, ConnectionState, toPublicStatus, type PublicStatus } from "../../src/core/connection-state.js";

const ALL = Object.values(ConnectionState);

describe("ConnectionState", () => {
  it("has the eight states with their wire spellings", () => {
    expect([...ALL].sort()).toEqual(["closed", "connected", "connecting", "disabled", "failed", "idle", "needs_auth", "needs_client_registration"]);
  });
});

describe("canTransition", () => {
  // Every arrow drawn in the doc comment of connection-state.ts.
  const documented: Array<[ConnectionState, ConnectionState]> = [
    ["idle", "connecting"],
    ["connecting", "connected"],
    ["connecting", "failed"],
    ["connecting", "needs_auth"],
    ["connecting", "needs_client_registration"],
    ["connected", "failed"],
    ["connected", "needs_auth"],
    ["connected", "connecting"],
    ["connected", "disabled"],
    ["failed", "connecting"],
    ["failed", "disabled"],
    ["needs_auth", "connecting"],
    ["needs_auth", "disabled"],
    ["needs_client_registration", "connecting"],
    ["needs_client_registration", "disabled"],
    ["disabled", "connecting"],
  ];

  for (const [from, to] of documented) {
    it(`allows ${from} → ${to}`, () => expect(canTransition(from, to)).toBe(true));
  }

  it("any state except closed can go to closed", () => {
    for (const from of ALL) expect(canTransition(from, "closed"), from).toBe(from !== "closed");
  });

  it("closed is final", () => {
    for (const to of ALL) expect(canTransition("closed", to), to).toBe(false);
  });

  it("no state transitions to itself", () => {
    for (const s of ALL) expect(canTransition(s, s), s).toBe(false);
  });

  it("connected is only reached from connecting", () => {
    for (const from of ALL) expect(canTransition(from, "connected"), from).toBe(from === "connecting");
  });

  it("needs_auth is reached from connecting or (tokens refused mid-session) connected; needs_client_registration only from connecting", () => {
    for (const from of ALL) {
      expect(canTransition(from, "needs_auth"), from).toBe(from === "connecting" || from === "connected");
      expect(canTransition(from, "needs_client_registration"), from).toBe(from === "connecting");
    }
  });

  it("nothing goes back to idle", () => {
    for (const from of ALL) expect(canTransition(from, "idle"), from).toBe(false);
  });

  it("extra arrows the connection code relies on: disable or fail before/while connecting", () => {
    // upstream-connection.ts disables an idle server and fails one whose config is unusable.
    expect(canTransition("idle", "disabled")).toBe(true);
    expect(canTransition("idle", "failed")).toBe(true);
    expect(canTransition("connecting", "disabled")).toBe(true);
  });

  it("the full transition set is exactly the documented arrows plus closed plus those extras", () => {
    const allowed = new Set(documented.map(([a, b]) => `${a}>${b}`));
    for (const from of ALL) if (from !== "closed") allowed.add(`${from}>closed`);
    for (const extra of ["idle>disabled", "idle>failed", "connecting>disabled"]) allowed.add(extra);
    const actual = new Set<string>();
    for (const from of ALL) for (const to of ALL) if (canTransition(from, to)) actual.add(`${from}>${to}`);
    expect([...actual].sort()).toEqual([...allowed].sort());
  });
});

describe("toPublicStatus", () => {
  it("reports public states as themselves", () => {
    const publics: PublicStatus[] = ["connected", "disabled", "failed", "needs_auth", "needs_client_registration"];
    for (const s of publics) expect(toPublicStatus(s)).toBe(s);
  });

  it("maps internal states idle, connecting and closed to failed", () => {
    expect(toPublicStatus("idle")).toBe("failed");
    expect(toPublicStatus("connecting")).toBe("failed");
    expect(toPublicStatus("closed")).toBe("failed");
  });
});
