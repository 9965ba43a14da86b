import { describe, expect, it } from "vitest";
import { backoffCeiling, createBackoff, DEFAULT_BACKOFF_BASE_MS, DEFAULT_BACKOFF_CAP_MS, DEFAULT_BACKOFF_STABLE_MS } from "../../bridge/src/backoff.js";

/** Random source pinned just below 1, so each delay sits at its ceiling. */
const atCeiling = (): number => 0.999_999;

describe("backoffCeiling", () => {
  it("doubles from the base and stops at the cap", () => {
    const ceilings = Array.from({ length: 10 }, (_, i) => backoffCeiling(i));
    expect(ceilings).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
  });

  it("stays finite for absurd attempt counts", () => {
    expect(backoffCeiling(10_000)).toBe(DEFAULT_BACKOFF_CAP_MS);
    expect(backoffCeiling(-1)).toBe(DEFAULT_BACKOFF_BASE_MS);
  });
});

describe("createBackoff", () => {
  it("draws each delay uniformly below the ceiling (full jitter)", () => {
    const draws = [0, 0.5, 0.25];
    const backoff = createBackoff({ random: () => draws.shift()! });
    expect([backoff.nextDelay(), backoff.nextDelay(), backoff.nextDelay()]).toEqual([0, 500, 500]);
    expect(backoff.attempts).toBe(3);
  });

  it("never exceeds the cap", () => {
    const backoff = createBackoff({ random: atCeiling, baseMs: 100, capMs: 1_000 });
    const delays = Array.from({ length: 20 }, () => backoff.nextDelay());
    expect(Math.max(...delays)).toBeLessThan(1_000);
    expect(delays.at(-1)).toBe(999);
  });

  it("resets after a connection that stayed up, not after one that dropped at once", () => {
    let now = 0;
    const backoff = createBackoff({ random: atCeiling, now: () => now });
    for (let i = 0; i < 5; i++) backoff.nextDelay();

    backoff.connected();
    now += 1_000;
    backoff.disconnected();
    expect(backoff.attempts).toBe(5);
    expect(backoff.nextDelay()).toBe(backoffCeiling(5) - 1);

    backoff.connected();
    now += DEFAULT_BACKOFF_STABLE_MS;
    backoff.disconnected();
    expect(backoff.attempts).toBe(0);
    expect(backoff.nextDelay()).toBe(DEFAULT_BACKOFF_BASE_MS - 1);
  });

  it("ignores a disconnect without a connect, and reset() forgets everything", () => {
    const backoff = createBackoff({ random: atCeiling, now: () => 1e12 });
    backoff.nextDelay();
    backoff.disconnected();
    expect(backoff.attempts).toBe(1);
    backoff.reset();
    expect(backoff.attempts).toBe(0);
  });

  it("spreads delays with the default random source", () => {
    const backoff = createBackoff({ capMs: 1_000_000, baseMs: 1_000_000 });
    const delays = new Set(Array.from({ length: 20 }, () => backoff.nextDelay()));
    expect(delays.size).toBeGreaterThan(1);
    for (const d of delays) expect(d).toBeGreaterThanOrEqual(0);
  });
});
