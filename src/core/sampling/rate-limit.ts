/**
 * Per-server sampling limits: concurrent samplings and tokens (in + out) per rolling hour,
 * with an injectable clock. Over a limit is an expected outcome, returned as a refusal
 * reason (the session answers -1 "rate_limited"), not thrown. Also keeps the server's
 * usage totals for the session status.
 */

export const DEFAULT_MAX_CONCURRENT_SAMPLINGS = 4;
export const DEFAULT_MAX_TOKENS_PER_HOUR = 200_000;
export const RATE_WINDOW_MS = 60 * 60_000;

export interface SamplingRateLimitOptions {
  /** ≤ 0 or Infinity: no cap. */
  maxConcurrent?: number;
  /** Input + output tokens in the last hour; ≤ 0 or Infinity: no cap. */
  maxTokensPerHour?: number;
  now?: () => number;
}

/** Why a sampling may not start now (the session answers -1 with this reason). */
export interface RateLimitRefusal {
  reason: "rate_limited";
  message: string;
}

/** Ends one sampling's slot; calls after the first are ignored. */
export type ReleaseSlot = () => void;

export interface SamplingUsage {
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

export class SamplingRateLimiter {
  private readonly maxConcurrent: number;
  private readonly maxTokensPerHour: number;
  private readonly now: () => number;
  private active = 0;
  /** Token spends inside the window, oldest first. */
  private window: Array<{ at: number; tokens: number }> = [];
  private totals: SamplingUsage = { inputTokens: 0, outputTokens: 0, requests: 0 };

  constructor(options: SamplingRateLimitOptions = {}) {
    this.maxConcurrent = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_SAMPLINGS;
    this.maxTokensPerHour = options.maxTokensPerHour ?? DEFAULT_MAX_TOKENS_PER_HOUR;
    this.now = options.now ?? Date.now;
  }

  /** Tokens spent in the rolling hour. */
  tokensInWindow(): number {
    const since = this.now() - RATE_WINDOW_MS;
    this.window = this.window.filter((spend) => spend.at > since);
    return this.window.reduce((sum, spend) => sum + spend.tokens, 0);
  }

  /** A slot for one sampling (a release function to call when it ends), or why not. */
  tryAcquire(): ReleaseSlot | RateLimitRefusal {
    if (this.maxConcurrent > 0 && this.active >= this.maxConcurrent) {
      return { reason: "rate_limited", message: `rate limited: ${this.active} samplings already running (limit ${this.maxConcurrent})` };
    }
    const spent = this.tokensInWindow();
    if (this.maxTokensPerHour > 0 && spent >= this.maxTokensPerHour) {
      return { reason: "rate_limited", message: `rate limited: ${spent} tokens in the last hour (limit ${this.maxTokensPerHour})` };
    }
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
    };
  }

  /** Records one finished sampling's usage. */
  record(usage: { inputTokens: number; outputTokens: number }): void {
    const tokens = Math.max(0, usage.inputTokens) + Math.max(0, usage.outputTokens);
    this.window.push({ at: this.now(), tokens });
    this.totals = {
      inputTokens: this.totals.inputTokens + Math.max(0, usage.inputTokens),
      outputTokens: this.totals.outputTokens + Math.max(0, usage.outputTokens),
      requests: this.totals.requests + 1,
    };
  }

  usage(): SamplingUsage {
    return { ...this.totals };
  }

  /** Samplings running now. */
  running(): number {
    return this.active;
  }
}
