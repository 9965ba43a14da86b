/**
 * runSampling against a REAL `@ai-sdk/openai-compatible` provider talking real SSE to the
 * scripted OpenAI-compatible server on 127.0.0.1: normal text, stop reasons, usage, the
 * output cap, temperature, stalls before and during the stream, a slow trickle, abort,
 * provider errors (key never echoed), and the heartbeat cadence (fake timers only there).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createLanguageModel } from "../../src/core/sampling/provider-factory.js";
import { ProviderSchema, type Provider } from "../../src/core/sampling/providers.js";
import { validateSamplingRequest } from "../../src/core/sampling/request.js";
import { globalTimers, runSampling, toStopReason, type RunSamplingOptions, type SamplingProgress } from "../../src/core/sampling/run.js";
import { SamplingError } from "../../src/core/sampling/errors.js";
import { eventually } from "../support/eventually.js";
import { startScriptedLlm, textPieces, type ScriptedLlm } from "../support/scripted-llm.js";

const API_KEY = "sk-test-very-secret-4f2a9c";
let llm: ScriptedLlm;

beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm.close();
});
afterEach(() => {
  vi.useRealTimers();
});

function provider(models: Provider["models"] = { chat: { input: ["text"], temperature: true } }): Provider {
  return ProviderSchema.parse({ kind: "openai-compatible", baseURL: llm.baseURL, apiKey: API_KEY, models });
}

const ask = (text: string, extra: Record<string, unknown> = {}) =>
  validateSamplingRequest({ messages: [{ role: "user", content: { type: "text", text } }], maxTokens: 500, ...extra });

function run(overrides: Partial<RunSamplingOptions> & { modelName?: string; spec?: Provider["models"][string] } = {}) {
  const { modelName = "chat", ...rest } = overrides;
  const p = provider({ [modelName]: overrides.spec ?? { input: ["text"], temperature: true } });
  return runSampling({
    model: createLanguageModel("local", p, modelName),
    modelId: `local/${modelName}`,
    request: ask("Say hello"),
    spec: p.models[modelName]!,
    secrets: [API_KEY],
    ...rest,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<SamplingError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(SamplingError.is(error), `expected a SamplingError, got ${String(error)}`).toBe(true);
  return error as SamplingError;
}

describe("runSampling with a real openai-compatible provider", () => {
  it("streams the text and reports model, endTurn and usage; the system prompt and messages reach the provider", async () => {
    llm.script([() => ({ text: "Hello there, friend.", usage: { prompt_tokens: 12, completion_tokens: 5 } })]);
    const result = await run({
      request: validateSamplingRequest({
        systemPrompt: "Be brief.",
        messages: [
          { role: "user", content: { type: "text", text: "Hi" } },
          { role: "assistant", content: [{ type: "text", text: "Hello?" }] },
          { role: "user", content: { type: "text", text: "Say hello" } },
        ],
        maxTokens: 100,
      }),
    });
    expect(result).toEqual({
      role: "assistant",
      content: { type: "text", text: "Hello there, friend." },
      model: "local/chat",
      stopReason: "endTurn",
      usage: { inputTokens: 12, outputTokens: 5 },
    });
    const sent = llm.requests[0]!;
    expect(sent.stream).toBe(true);
    expect(sent.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(sent.messages[0]!.content).toBe("Be brief.");
    expect(llm.headers[0]!.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it("finish_reason length → stopReason maxTokens", async () => {
    llm.script([() => ({ text: "cut short", finishReason: "length" })]);
    expect((await run()).stopReason).toBe("maxTokens");
  });

  it("maxOutputTokens = min(request maxTokens, model outputLimit)", async () => {
    llm.script([() => ({ text: "a" }), () => ({ text: "b" })]);
    await run({ spec: { input: ["text"], temperature: true, outputLimit: 64 }, request: ask("x") });
    await run({ spec: { input: ["text"], temperature: true, outputLimit: 4096 }, request: ask("x") });
    expect(llm.requests.map((r) => r.max_tokens)).toEqual([64, 500]);
  });

  it("sends temperature and stop sequences where supported, never temperature where the model rejects it", async () => {
    llm.script([() => ({ text: "a" }), () => ({ text: "b" })]);
    const request = ask("x", { temperature: 0.3, stopSequences: ["END"] });
    await run({ request, spec: { input: ["text"], temperature: true } });
    await run({ request, spec: { input: ["text"], temperature: false } });
    expect(llm.requests[0]!.temperature).toBe(0.3);
    expect(llm.requests[0]!.stop).toEqual(["END"]);
    expect("temperature" in llm.requests[1]!).toBe(false);
  });

  it("media reach the provider as file parts with their MIME type (image_url, input_audio)", async () => {
    llm.script([() => ({ text: "seen" })]);
    const request = validateSamplingRequest({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
            { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
          ],
        },
      ],
      maxTokens: 10,
    });
    await run({ request, spec: { input: ["text", "image", "audio"], temperature: true } });
    const content = llm.requests[0]!.messages[0]!.content as Array<Record<string, unknown>>;
    expect(content).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
    ]);
  });

  it("a provider that never sends a text chunk fails with RequestTimeout, data chunks 0 (lifecycle parts do not count)", async () => {
    llm.script([() => ({ text: "never sent", stallAfterChunks: 0 })]);
    const error = await failureOf(run({ chunkTimeoutMs: 300 }));
    expect(error.code).toBe(-32001);
    expect(error.message).toBe("no output from local/chat for 300 ms");
    expect(error.data).toEqual({ chunks: 0, characters: 0 });
    // The stall aborted the provider call: the server saw its connection close early.
    expect(await llm.responses[0]!.closed).toEqual({ finished: false });
  });

  it("a provider that never even answers the HTTP request fails the same way", async () => {
    llm.script([() => ({ text: "never sent", stallBeforeHeaders: true })]);
    const error = await failureOf(run({ chunkTimeoutMs: 300 }));
    expect(error).toMatchObject({ code: -32001, data: { chunks: 0, characters: 0 } });
    expect(await llm.responses[0]!.closed).toEqual({ finished: false });
  });

  it("a stall mid-stream fails with RequestTimeout carrying the chunks and characters received", async () => {
    llm.script([() => ({ text: "one two three four", stallAfterChunks: 2 })]);
    const error = await failureOf(run({ chunkTimeoutMs: 300 }));
    expect(error.code).toBe(-32001);
    expect(error.data).toEqual({ chunks: 2, characters: "one two ".length });
    expect(await llm.responses[0]!.closed).toEqual({ finished: false });
  });

  it("a trickle slower than the heartbeat but faster than the chunk timeout succeeds, with heartbeats on the way", async () => {
    const text = "slow and steady wins the race in the end ";
    llm.script([() => ({ text, chunkDelayMs: 100 })]);
    const beats: SamplingProgress[] = [];
    const started = Date.now();
    const result = await run({ chunkTimeoutMs: 400, heartbeatMs: 50, onHeartbeat: (p) => beats.push(p) });
    expect(result.content.text).toBe(text);
    // The whole answer took longer than the chunk timeout: each chunk re-armed it.
    expect(Date.now() - started).toBeGreaterThan(400);
    expect(beats.length).toBeGreaterThan(0);
    for (const beat of beats) expect(Object.keys(beat).sort()).toEqual(["characters", "chunks"]);
    expect(beats.at(-1)!.chunks).toBeLessThanOrEqual(textPieces(text).length);
  });

  it("chunkTimeout ≤ 0 disables stall detection (the stalled stream resumes and completes)", async () => {
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    llm.script([() => ({ text: "late but complete", stallAfterChunks: 1, resume: resumed })]);
    const beats: SamplingProgress[] = [];
    const pending = run({ chunkTimeoutMs: 0, heartbeatMs: 20, onHeartbeat: (p) => {
      beats.push(p);
      // Past a few heartbeats with the stream stalled, let the server go on.
      if (beats.length === 5) resume();
    } });
    const result = await pending;
    expect(result.content.text).toBe("late but complete");
    expect(beats.slice(0, 5).every((b) => b.chunks === 1)).toBe(true);
  });

  it("abort mid-stream → RequestTimeout 'sampling cancelled', and the server sees the connection close", async () => {
    llm.script([() => ({ text: "first second third", stallAfterChunks: 1 })]);
    const controller = new AbortController();
    const beats: SamplingProgress[] = [];
    const pending = run({
      signal: controller.signal,
      heartbeatMs: 20,
      onHeartbeat: (p) => {
        beats.push(p);
        if (p.chunks === 1) controller.abort();
      },
    });
    const error = await failureOf(pending);
    expect(error.code).toBe(-32001);
    expect(error.message).toBe("sampling cancelled");
    expect(error.data).toEqual({ chunks: 1, characters: "first ".length });
    expect(await llm.responses[0]!.closed).toEqual({ finished: false });
  });

  it("an already aborted signal fails at once without calling the provider", async () => {
    llm.script([]);
    const error = await failureOf(run({ signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: -32001, message: "sampling cancelled" });
    expect(llm.requests).toHaveLength(0);
  });

  it("a provider 500 → InternalError after one retry (maxRetries 1); the API key echoed by the provider never reaches the message", async () => {
    const echoKey = (_: unknown, { headers }: { headers: Record<string, string> }) => ({ httpError: 500, message: `upstream broke; you sent ${headers.authorization}` });
    llm.script([echoKey, echoKey]);
    const error = await failureOf(run());
    expect(error.code).toBe(-32603);
    expect(error.message).toContain("model local/chat failed");
    expect(error.message).toContain("upstream broke");
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify(error.data)).not.toContain(API_KEY);
    expect(llm.requests).toHaveLength(2);
  });

  it("a provider 400 is not retried and is an InternalError naming the status", async () => {
    llm.script([() => ({ httpError: 400, message: "model does not exist" })]);
    const error = await failureOf(run());
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/model does not exist.*HTTP 400/);
    expect(llm.requests).toHaveLength(1);
  });
});

describe("heartbeat cadence (fake timers on the injected scheduler only)", () => {
  it("fires every heartbeatMs while the model runs, with counts only, and stops when it ends", async () => {
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    llm.script([() => ({ text: "alpha beta gamma", stallAfterChunks: 1, resume: resumed })]);
    // Only the interval is faked: the HTTP stack and the stall timer keep real time.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const beats: SamplingProgress[] = [];
    const pending = run({ heartbeatMs: 15_000, onHeartbeat: (p) => beats.push(p) });
    // The first chunk arrives in real time; each look drives the fake interval by one period.
    await eventually(
      async () => {
        vi.advanceTimersByTime(15_000);
        return beats.at(-1)?.chunks;
      },
      (chunks) => chunks === 1,
    );
    const before = beats.length;
    vi.advanceTimersByTime(14_999);
    expect(beats).toHaveLength(before);
    vi.advanceTimersByTime(1);
    expect(beats).toHaveLength(before + 1);
    vi.advanceTimersByTime(45_000);
    expect(beats).toHaveLength(before + 4);
    expect(beats.at(-1)).toEqual({ chunks: 1, characters: "alpha ".length });
    resume();
    const result = await pending;
    expect(result.content.text).toBe("alpha beta gamma");
    const after = beats.length;
    vi.advanceTimersByTime(60_000);
    expect(beats).toHaveLength(after);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("without onHeartbeat no interval is ever scheduled", async () => {
    llm.script([() => ({ text: "quiet", stallAfterChunks: 0, resume: Promise.resolve() })]);
    const timers = { ...globalTimers, setInterval: vi.fn(globalTimers.setInterval) };
    const result = await run({ timers });
    expect(result.content.text).toBe("quiet");
    expect(timers.setInterval).not.toHaveBeenCalled();
  });

  it("the injected scheduler also drives the stall timer", async () => {
    llm.script([() => ({ text: "never", stallAfterChunks: 0 })]);
    const scheduled: number[] = [];
    const timers = { ...globalTimers, setTimeout: (callback: () => void, ms: number) => {
      scheduled.push(ms);
      return globalTimers.setTimeout(callback, 10);
    } };
    const error = await failureOf(run({ timers, chunkTimeoutMs: 480_000 }));
    expect(error).toMatchObject({ code: -32001, message: "no output from local/chat for 480000 ms", data: { chunks: 0, characters: 0 } });
    expect(scheduled[0]).toBe(480_000);
  });
});

describe("toStopReason", () => {
  it("maps the AI SDK finish reasons to MCP's", () => {
    expect(toStopReason("stop")).toBe("endTurn");
    expect(toStopReason("stop", "stop_sequence")).toBe("stopSequence");
    expect(toStopReason("length")).toBe("maxTokens");
    expect(toStopReason("tool-calls")).toBe("toolUse");
    expect(toStopReason("content-filter")).toBe("contentFilter");
    expect(toStopReason("other")).toBe("other");
  });
});
