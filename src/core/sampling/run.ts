/**
 * Runs one validated sampling request on a language model with `streamText` and turns the
 * outcome into MCP's `CreateMessageResult`. There is no total-duration cap; instead a stall
 * timer fails the request with RequestTimeout when no real output (text or reasoning
 * deltas; lifecycle parts do not count) arrived for `chunkTimeoutMs`. While it runs, an
 * optional heartbeat reports chunk and character counts (never model text) so the caller
 * can send `notifications/progress` when — and only when — the server gave a progressToken.
 */
import { streamText, type LanguageModel } from "ai";
import { redactLogText } from "../redact-log.js";
import { internalError, requestTimeout, SamplingError } from "./errors.js";
import type { ModelSpec } from "./providers.js";
import type { ValidatedSampling } from "./request.js";

export const DEFAULT_CHUNK_TIMEOUT_MS = 480_000;
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** The scheduler, injectable so tests can drive the heartbeat cadence with fake timers. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** The global timers, looked up on each call (so fake timers installed later still apply). */
export const globalTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
  setInterval: (callback, ms) => globalThis.setInterval(callback, ms),
  clearInterval: (handle) => globalThis.clearInterval(handle as number),
};

export interface SamplingProgress {
  /** Output chunks (text or reasoning deltas) received so far. */
  chunks: number;
  /** Characters in those chunks. */
  characters: number;
}

export interface RunSamplingOptions {
  model: LanguageModel;
  /** "provider/model", reported as the result's `model`. */
  modelId: string;
  request: ValidatedSampling;
  spec: ModelSpec;
  /** Stall timeout: no output chunk for this long fails the request; ≤ 0 disables. */
  chunkTimeoutMs?: number;
  /** Heartbeat period; ≤ 0 sends none. */
  heartbeatMs?: number;
  /** Called every `heartbeatMs` while the model runs; pass it only when the request carried a progressToken. */
  onHeartbeat?: (progress: SamplingProgress) => void;
  /** The server's cancellation or the connection/session closing. */
  signal?: AbortSignal;
  timers?: Timers;
  /** Values (API keys) scrubbed from any error message, on top of bearer tokens and URL credentials. */
  secrets?: readonly string[];
}

export interface SamplingResult {
  role: "assistant";
  content: { type: "text"; text: string };
  model: string;
  stopReason: "endTurn" | "maxTokens" | "stopSequence" | (string & {});
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * AI SDK finish reason → MCP stopReason. A stop sequence is only told apart where the
 * provider reports it (Anthropic's raw `stop_sequence`); OpenAI-style APIs say `stop` for both.
 */
export function toStopReason(finishReason: string, rawFinishReason?: string): SamplingResult["stopReason"] {
  if (finishReason === "length") return "maxTokens";
  if (finishReason === "stop") return rawFinishReason === "stop_sequence" ? "stopSequence" : "endTurn";
  if (finishReason === "tool-calls") return "toolUse";
  if (finishReason === "content-filter") return "contentFilter";
  return finishReason;
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[redacted]");
  return redactLogText(out);
}

function providerMessage(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { statusCode?: unknown }).statusCode;
    return typeof status === "number" ? `${error.message} (HTTP ${status})` : error.message;
  }
  return String(error);
}

export async function runSampling(options: RunSamplingOptions): Promise<SamplingResult> {
  const { model, modelId, request, spec, onHeartbeat, signal, secrets = [] } = options;
  const timers = options.timers ?? globalTimers;
  const chunkTimeoutMs = options.chunkTimeoutMs ?? DEFAULT_CHUNK_TIMEOUT_MS;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const progress: SamplingProgress = { chunks: 0, characters: 0 };
  const snapshot = (): SamplingProgress => ({ chunks: progress.chunks, characters: progress.characters });

  if (signal?.aborted) throw requestTimeout("sampling cancelled", snapshot());

  const controller = new AbortController();
  let ended: "stalled" | "cancelled" | undefined;
  const onCancel = () => {
    ended ??= "cancelled";
    controller.abort();
  };
  signal?.addEventListener("abort", onCancel, { once: true });

  let stallTimer: unknown;
  const armStallTimer = () => {
    if (chunkTimeoutMs <= 0) return;
    if (stallTimer !== undefined) timers.clearTimeout(stallTimer);
    stallTimer = timers.setTimeout(() => {
      ended ??= "stalled";
      controller.abort();
    }, chunkTimeoutMs);
  };
  const beat = () => {
    try {
      onHeartbeat?.(snapshot());
    } catch {
      // A failing progress notification must not fail the sampling.
    }
  };
  const heartbeat = onHeartbeat && heartbeatMs > 0 ? timers.setInterval(beat, heartbeatMs) : undefined;

  const failure = (error?: unknown): SamplingError => {
    if (ended === "stalled") return requestTimeout(`no output from ${modelId} for ${chunkTimeoutMs} ms`, snapshot());
    if (ended === "cancelled") return requestTimeout("sampling cancelled", snapshot());
    if (SamplingError.is(error)) return error;
    return internalError(`model ${modelId} failed: ${scrub(providerMessage(error), secrets)}`, { model: modelId, ...snapshot() });
  };

  try {
    armStallTimer();
    const result = streamText({
      model,
      ...(request.system === undefined ? {} : { instructions: request.system }),
      messages: request.messages,
      maxOutputTokens: spec.outputLimit === undefined ? request.maxTokens : Math.min(request.maxTokens, spec.outputLimit),
      ...(spec.temperature !== false && request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.stopSequences === undefined ? {} : { stopSequences: request.stopSequences }),
      maxRetries: 1,
      abortSignal: controller.signal,
      // Errors arrive as stream parts below; the SDK's default handler would log them.
      onError: () => {},
    });

    let text = "";
    let finishReason = "other";
    let rawFinishReason: string | undefined;
    let usage = { inputTokens: 0, outputTokens: 0 };
    for await (const part of result.fullStream) {
      if (ended) break;
      switch (part.type) {
        case "text-delta":
        case "reasoning-delta":
          if (part.text.length === 0) break;
          progress.chunks += 1;
          progress.characters += part.text.length;
          if (part.type === "text-delta") text += part.text;
          armStallTimer();
          break;
        case "finish":
          finishReason = part.finishReason;
          rawFinishReason = part.rawFinishReason;
          usage = { inputTokens: part.totalUsage.inputTokens ?? 0, outputTokens: part.totalUsage.outputTokens ?? 0 };
          break;
        case "error":
          throw part.error;
        case "abort":
          throw failure(new Error("the model call was aborted"));
        default:
          break;
      }
    }
    if (ended) throw failure();
    return { role: "assistant", content: { type: "text", text }, model: modelId, stopReason: toStopReason(finishReason, rawFinishReason), usage };
  } catch (error) {
    throw failure(error);
  } finally {
    if (stallTimer !== undefined) timers.clearTimeout(stallTimer);
    if (heartbeat !== undefined) timers.clearInterval(heartbeat);
    signal?.removeEventListener("abort", onCancel);
    controller.abort();
  }
}
