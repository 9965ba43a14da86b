/**
 * The small pieces of sampling: provider config and the adapter capability registry,
 * the session-over-deployment merge, API-key redaction, the adapter factory, the error
 * factories, approval metadata and the per-server rate limiter.
 */
import { describe, expect, it } from "vitest";
import { APPROVAL_TEXT_LIMIT, cutText, samplingApprovalMetadata } from "../../src/core/sampling/approval.js";
import { internalError, invalidParams, refused, requestTimeout, SamplingError } from "../../src/core/sampling/errors.js";
import { createLanguageModel } from "../../src/core/sampling/provider-factory.js";
import {
  adapterCapabilities,
  adapterTakesAudio,
  mergeProviders,
  ModelSpecSchema,
  ProviderSchema,
  ProvidersSchema,
  redactProviders,
  type Providers,
} from "../../src/core/sampling/providers.js";
import { SamplingRateLimiter } from "../../src/core/sampling/rate-limit.js";
import { validateSamplingRequest } from "../../src/core/sampling/request.js";

const SECRET = "sk-live-0123456789abcdef";

describe("provider config", () => {
  it("model specs default to text input with temperature", () => {
    expect(ModelSpecSchema.parse({})).toEqual({ input: ["text"], temperature: true });
  });

  it("provider ids match ^[a-zA-Z0-9_-]{1,64}$; unknown keys and bad values are refused by path", () => {
    const good = { kind: "openai-compatible", baseURL: "http://127.0.0.1:1/v1", models: { m: {} } };
    expect(ProvidersSchema.safeParse({ "local_1-x": good }).success).toBe(true);
    for (const id of ["a/b", "", "x".repeat(65), "a b"]) expect(ProvidersSchema.safeParse({ [id]: good }).success, id).toBe(false);
    const unknown = ProviderSchema.safeParse({ ...good, secret: 1 });
    expect(unknown.success).toBe(false);
    expect(unknown.error!.issues[0]!.code).toBe("unrecognized_keys");
    const badInput = ProviderSchema.safeParse({ ...good, models: { m: { input: ["video"] } } });
    expect(badInput.error!.issues[0]!.path).toEqual(["models", "m", "input", 0]);
    expect(ProviderSchema.safeParse({ ...good, baseURL: "file:///etc/passwd" }).success).toBe(false);
    expect(ProviderSchema.safeParse({ ...good, models: { m: { outputLimit: 0 } } }).success).toBe(false);
  });
});

describe("adapter capability registry", () => {
  it("openai-compatible: wav, mp3, mpeg only; google: any audio; anthropic and bedrock: none; others unknown", () => {
    const oai = adapterCapabilities("openai-compatible");
    expect(oai.audio).toEqual(["audio/wav", "audio/mp3", "audio/mpeg"]);
    expect(["audio/wav", "audio/mp3", "audio/mpeg"].every((m) => adapterTakesAudio(oai, m))).toBe(true);
    expect(adapterTakesAudio(oai, "audio/ogg")).toBe(false);
    expect(adapterTakesAudio(adapterCapabilities("google"), "audio/ogg")).toBe(true);
    expect(adapterTakesAudio(adapterCapabilities("google"), "image/png")).toBe(false);
    expect(adapterCapabilities("anthropic").audio).toBe("none");
    expect(adapterCapabilities("bedrock").audio).toBe("none");
    expect(adapterCapabilities("workers-ai").audio).toBe("unknown");
    expect(adapterCapabilities("openai").audio).toBe("unknown");
    expect(adapterTakesAudio(adapterCapabilities("something-new"), "audio/wav")).toBe(false);
    expect(adapterCapabilities("anthropic").image).toEqual(["image/jpeg", "image/png", "image/gif", "image/webp"]);
  });
});

describe("mergeProviders and redactProviders", () => {
  const deployment: Providers = ProvidersSchema.parse({
    shared: { kind: "openai", apiKey: SECRET, models: { "gpt-4o": {} } },
    other: { kind: "anthropic", apiKey: SECRET, headers: { "x-api-key": SECRET }, models: { c: {} } },
  });

  it("a session adds providers and replaces a deployment entry whole (no key inherited by a session's baseURL)", () => {
    const session = ProvidersSchema.parse({ shared: { kind: "openai-compatible", baseURL: "https://evil.example/v1", models: { m: {} } }, mine: { kind: "google", models: { g: {} } } });
    const merged = mergeProviders(deployment, session);
    expect(Object.keys(merged)).toEqual(["shared", "other", "mine"]);
    expect(merged.shared).toEqual(session.shared);
    expect(merged.shared!.apiKey).toBeUndefined();
    expect(mergeProviders(undefined, undefined)).toEqual({});
    expect(mergeProviders(deployment)).toEqual(deployment);
  });

  it("redaction drops apiKey and header values, keeps the rest", () => {
    const redacted = redactProviders(deployment);
    expect(JSON.stringify(redacted)).not.toContain(SECRET);
    expect(redacted.shared).toEqual({ kind: "openai", models: { "gpt-4o": { input: ["text"], temperature: true } } });
    expect(redacted.other!.headers).toEqual({ "x-api-key": "[redacted]" });
    // The input is left alone.
    expect(deployment.shared!.apiKey).toBe(SECRET);
  });
});

describe("createLanguageModel", () => {
  const spec = { m: {} };
  it("builds each supported adapter", () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["openai-compatible", { baseURL: "http://127.0.0.1:1/v1" }, "local.chat"],
      ["workers-ai", { baseURL: "https://api.cloudflare.com/client/v4/accounts/a/ai/v1" }, "local.chat"],
      ["openai", {}, "openai"],
      ["anthropic", {}, "anthropic"],
      ["google", {}, "google"],
    ];
    for (const [kind, extra, providerPrefix] of cases) {
      const model = createLanguageModel("local", ProviderSchema.parse({ kind, apiKey: SECRET, models: spec, ...extra }), "m");
      expect(typeof model === "object" && model.modelId, kind).toBe("m");
      expect(typeof model === "object" && model.provider.startsWith(providerPrefix), `${kind}: ${typeof model === "object" ? model.provider : model}`).toBe(true);
    }
  });

  it("an unsupported kind → InternalError naming the kind, never the key", () => {
    let error: unknown;
    try {
      createLanguageModel("p", ProviderSchema.parse({ kind: "bedrock", apiKey: SECRET, models: spec }), "m");
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: -32603, data: { provider: "p", kind: "bedrock" } });
    expect((error as Error).message).toContain('kind "bedrock" is not supported');
    expect(JSON.stringify(error) + (error as Error).message).not.toContain(SECRET);
  });

  it("openai-compatible without a baseURL → InternalError", () => {
    expect(() => createLanguageModel("p", ProviderSchema.parse({ kind: "openai-compatible", models: spec }), "m")).toThrow("provider p (openai-compatible) needs a baseURL");
  });
});

describe("sampling errors", () => {
  it("carry their JSON-RPC codes; refusals carry the reason label in data", () => {
    const r = refused("policy", "sampling is denied for server notes");
    expect([r.code, r.reason, r.data, r.message]).toEqual([-1, "policy", { reason: "policy" }, "sampling is denied for server notes"]);
    expect(invalidParams("bad", { path: "x" })).toMatchObject({ code: -32602, data: { path: "x" } });
    expect(requestTimeout("slow")).toMatchObject({ code: -32001 });
    expect(internalError("boom")).toMatchObject({ code: -32603 });
    expect(SamplingError.is(r)).toBe(true);
    expect(SamplingError.is(new Error("x"))).toBe(false);
    expect(SamplingError.is({ code: -1 })).toBe(false);
  });
});

describe("samplingApprovalMetadata", () => {
  it("shows model, hints, kinds, audio bytes, the prompts cut to 200 characters, maxTokens — never media data", () => {
    const long = "x".repeat(500);
    const request = validateSamplingRequest({
      systemPrompt: long,
      messages: [
        { role: "assistant", content: { type: "text", text: "not the user" } },
        { role: "user", content: [{ type: "audio", data: "UklGRgAA", mimeType: "audio/wav" }, { type: "text", text: `${"y".repeat(199)}😀😀` }] },
      ],
      maxTokens: 321,
      modelPreferences: { hints: [{ name: "claude" }] },
    });
    const metadata = samplingApprovalMetadata(request, "p/m");
    expect(metadata).toEqual({
      model: "p/m",
      hints: ["claude"],
      contentKinds: ["text", "audio"],
      audioBytes: 6,
      systemPrompt: `${"x".repeat(APPROVAL_TEXT_LIMIT)}…`,
      firstUserText: `${"y".repeat(199)}😀…`,
      maxTokens: 321,
    });
    expect(JSON.stringify(metadata)).not.toContain("UklGRgAA");
  });

  it("leaves out prompts that are not there; short texts stay whole", () => {
    const request = validateSamplingRequest({ messages: [{ role: "assistant", content: { type: "text", text: "a" } }], maxTokens: 1 });
    expect(samplingApprovalMetadata(request, "p/m")).toEqual({ model: "p/m", hints: [], contentKinds: ["text"], audioBytes: 0, maxTokens: 1 });
    expect(cutText("short")).toBe("short");
  });
});

describe("SamplingRateLimiter", () => {
  it("caps concurrent samplings; a release frees a slot once", () => {
    const limiter = new SamplingRateLimiter({ maxConcurrent: 2, maxTokensPerHour: 0 });
    const a = limiter.tryAcquire();
    const b = limiter.tryAcquire();
    expect(typeof a).toBe("function");
    expect(typeof b).toBe("function");
    expect(limiter.tryAcquire()).toEqual({ reason: "rate_limited", message: "rate limited: 2 samplings already running (limit 2)" });
    (a as () => void)();
    (a as () => void)();
    expect(limiter.running()).toBe(1);
    expect(typeof limiter.tryAcquire()).toBe("function");
    expect(typeof limiter.tryAcquire()).toBe("object");
  });

  it("caps tokens per rolling hour with the injected clock", () => {
    let now = 1_000_000;
    const limiter = new SamplingRateLimiter({ maxConcurrent: 0, maxTokensPerHour: 1000, now: () => now });
    limiter.record({ inputTokens: 600, outputTokens: 300 });
    expect(typeof limiter.tryAcquire()).toBe("function");
    now += 30 * 60_000;
    limiter.record({ inputTokens: 50, outputTokens: 50 });
    expect(limiter.tryAcquire()).toEqual({ reason: "rate_limited", message: "rate limited: 1000 tokens in the last hour (limit 1000)" });
    // The first spend leaves the window an hour after it happened.
    now += 30 * 60_000 + 1;
    expect(limiter.tokensInWindow()).toBe(100);
    expect(typeof limiter.tryAcquire()).toBe("function");
  });

  it("usage totals tokens in and out and requests, beyond the window", () => {
    let now = 0;
    const limiter = new SamplingRateLimiter({ now: () => now });
    limiter.record({ inputTokens: 10, outputTokens: 5 });
    now += 2 * 60 * 60_000;
    limiter.record({ inputTokens: 1, outputTokens: 2 });
    expect(limiter.usage()).toEqual({ inputTokens: 11, outputTokens: 7, requests: 2 });
    expect(limiter.tokensInWindow()).toBe(3);
  });

  it("defaults: 4 concurrent", () => {
    const limiter = new SamplingRateLimiter();
    for (let i = 0; i < 4; i++) expect(typeof limiter.tryAcquire()).toBe("function");
    expect(typeof limiter.tryAcquire()).toBe("object");
  });
});
