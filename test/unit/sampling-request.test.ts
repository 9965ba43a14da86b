/**
 * Strict validation of `sampling/createMessage` params: every rule accepted and rejected,
 * each rejection an InvalidParams (-32602) whose message names the field and the problem.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SamplingError } from "../../src/core/sampling/errors.js";
import { normalizeMime, validateSamplingRequest, type SamplingLimits } from "../../src/core/sampling/request.js";

const text = (t: string) => ({ type: "text", text: t });
const user = (content: unknown) => ({ role: "user", content });
const base = (extra: Record<string, unknown> = {}) => ({ messages: [user(text("hi"))], maxTokens: 100, ...extra });
const PNG = "iVBORw0KGgo=";

function rejection(params: unknown, limits?: Partial<SamplingLimits>): SamplingError {
  try {
    validateSamplingRequest(params, limits);
  } catch (error) {
    expect(SamplingError.is(error)).toBe(true);
    expect((error as SamplingError).code).toBe(-32602);
    return error as SamplingError;
  }
  throw new Error("expected a rejection");
}

describe("validateSamplingRequest: accepted", () => {
  it("a minimal text request", () => {
    const v = validateSamplingRequest(base());
    expect(v).toEqual({
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      maxTokens: 100,
      modalities: { image: false, audio: false, audioMimes: [] },
      audioBytes: 0,
      contentKinds: ["text"],
      firstUserText: "hi",
      hints: [],
      priorities: {},
    });
  });

  it("single items and arrays (MCP 2025-11-25), both roles, media as file parts with their MIME", () => {
    const v = validateSamplingRequest({
      systemPrompt: "You are terse.",
      messages: [
        { role: "assistant", content: text("earlier answer") },
        user([text("look"), { type: "image", data: PNG, mimeType: "image/PNG" }, { type: "audio", data: "UklGRg==", mimeType: "audio/wav; codecs=1" }]),
        user({ type: "audio", data: "SUQzBA==", mimeType: "audio/mpeg" }),
      ],
      maxTokens: 5,
      temperature: 0.2,
      stopSequences: ["\n\n"],
      includeContext: "thisServer",
      modelPreferences: { hints: [{ name: "claude" }, {}, { name: "" }, { name: "gpt" }], costPriority: 0, speedPriority: 0.5, intelligencePriority: 1 },
      metadata: { anything: true },
      _meta: { progressToken: 1 },
    });
    expect(v.messages).toEqual([
      { role: "assistant", content: [{ type: "text", text: "earlier answer" }] },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "file", data: PNG, mediaType: "image/png" },
          { type: "file", data: "UklGRg==", mediaType: "audio/wav" },
        ],
      },
      { role: "user", content: [{ type: "file", data: "SUQzBA==", mediaType: "audio/mpeg" }] },
    ]);
    expect(v.system).toBe("You are terse.");
    expect(v.temperature).toBe(0.2);
    expect(v.stopSequences).toEqual(["\n\n"]);
    expect(v.includeContext).toBe("thisServer");
    expect(v.modalities).toEqual({ image: true, audio: true, audioMimes: ["audio/wav", "audio/mpeg"] });
    expect(v.audioBytes).toBe(4 + 4);
    expect(v.contentKinds).toEqual(["text", "image", "audio"]);
    expect(v.firstUserText).toBe("look");
    expect(v.hints).toEqual(["claude", "gpt"]);
    expect(v.priorities).toEqual({ cost: 0, speed: 0.5, intelligence: 1 });
  });

  it("decoded sizes: padding counts, limits are inclusive", () => {
    expect(validateSamplingRequest(base({ messages: [user({ type: "audio", data: "AAAA", mimeType: "audio/wav" })] })).audioBytes).toBe(3);
    expect(validateSamplingRequest(base({ messages: [user({ type: "audio", data: "AA==", mimeType: "audio/wav" })] })).audioBytes).toBe(1);
    const image = { type: "image", data: "AAAAAA==", mimeType: "image/gif" }; // 4 bytes
    expect(() => validateSamplingRequest(base({ messages: [user(image)] }), { maxImageBytes: 4 })).not.toThrow();
    expect(() => validateSamplingRequest(base({ messages: [user(text("héllo"))] }), { maxTextBytes: 6 })).not.toThrow();
  });
});

describe("validateSamplingRequest: rejected", () => {
  const cases: Array<[string, unknown, string, Partial<SamplingLimits>?]> = [
    ["params not an object", "nope", "params: must be an object"],
    ["tools", base({ tools: [{ name: "x", inputSchema: { type: "object" } }] }), "tools: is not supported: mcp-edge does not declare sampling.tools"],
    ["toolChoice", base({ toolChoice: { mode: "auto" } }), "toolChoice: is not supported: mcp-edge does not declare sampling.tools"],
    ["maxTokens missing", { messages: [user(text("hi"))] }, "maxTokens: must be a positive integer, got nothing"],
    ["maxTokens zero", base({ maxTokens: 0 }), "maxTokens: must be a positive integer, got 0"],
    ["maxTokens negative", base({ maxTokens: -5 }), "maxTokens: must be a positive integer, got -5"],
    ["maxTokens fractional", base({ maxTokens: 1.5 }), "maxTokens: must be a positive integer, got 1.5"],
    ["maxTokens string", base({ maxTokens: "10" }), 'maxTokens: must be a positive integer, got "10"'],
    ["messages missing", { maxTokens: 1 }, "messages: must be an array"],
    ["messages empty", base({ messages: [] }), "messages: must not be empty"],
    ["message not an object", base({ messages: ["hi"] }), "messages[0]: must be an object with role and content"],
    ["role system", base({ messages: [{ role: "system", content: text("x") }] }), 'messages[0].role: must be "user" or "assistant", got "system"'],
    ["role tool", base({ messages: [user(text("a")), { role: "tool", content: text("x") }] }), 'messages[1].role: must be "user" or "assistant", got "tool"'],
    ["content missing", base({ messages: [{ role: "user" }] }), "messages[0].content: must not be empty"],
    ["content empty array", base({ messages: [user([])] }), "messages[0].content: must not be empty"],
    ["content item not an object", base({ messages: [user(["hi"])] }), "messages[0].content[0]: content must be an object with a type"],
    ["tool_use content", base({ messages: [user({ type: "tool_use", id: "1", name: "x", input: {} })] }), 'messages[0].content.type: "tool_use" content needs sampling.tools, which mcp-edge does not declare'],
    ["tool_result content", base({ messages: [user([text("a"), { type: "tool_result", toolUseId: "1", content: [] }])] }), 'messages[0].content[1].type: "tool_result" content needs sampling.tools, which mcp-edge does not declare'],
    ["resource content", base({ messages: [user({ type: "resource", resource: {} })] }), 'messages[0].content.type: content type must be text, image or audio, got "resource"'],
    ["text not a string", base({ messages: [user({ type: "text", text: 5 })] }), "messages[0].content.text: must be a string"],
    ["text over 1 MiB", base({ messages: [user(text("x".repeat(1024 * 1024 + 1)))] }), "messages[0].content.text: is 1048577 bytes, over the 1048576-byte limit"],
    ["text over the limit in UTF-8 bytes", base({ messages: [user(text("héllo"))] }), "messages[0].content.text: is 6 bytes, over the 5-byte limit", { maxTextBytes: 5 }],
    ["system prompt over 1 MiB", base({ systemPrompt: "é".repeat(600_000) }), "systemPrompt: is 1200000 bytes, over the 1048576-byte limit"],
    ["system prompt not a string", base({ systemPrompt: 1 }), "systemPrompt: must be a string"],
    ["image without mimeType", base({ messages: [user({ type: "image", data: PNG })] }), "messages[0].content.mimeType: must be a string"],
    ["invalid MIME", base({ messages: [user({ type: "image", data: PNG, mimeType: "png" })] }), 'messages[0].content.mimeType: "png" is not a valid MIME type'],
    ["MIME of another modality", base({ messages: [user({ type: "image", data: PNG, mimeType: "audio/wav" })] }), "messages[0].content.mimeType: audio/wav does not match image content (expected image/…)"],
    ["audio with an image MIME", base({ messages: [user({ type: "audio", data: PNG, mimeType: "image/png" })] }), "messages[0].content.mimeType: image/png does not match audio content (expected audio/…)"],
    ["image type outside the allow-list", base({ messages: [user({ type: "image", data: PNG, mimeType: "image/tiff" })] }), "messages[0].content.mimeType: image/tiff is not a supported image type (image/jpeg, image/png, image/gif, image/webp)"],
    ["data not a string", base({ messages: [user({ type: "image", data: 12, mimeType: "image/png" })] }), "messages[0].content.data: must be a base64 string"],
    ["data empty", base({ messages: [user({ type: "image", data: "", mimeType: "image/png" })] }), "messages[0].content.data: is empty"],
    ["base64 length not a multiple of 4", base({ messages: [user({ type: "image", data: "iVBORw0KGgo", mimeType: "image/png" })] }), "messages[0].content.data: is not canonical base64 (length 11 is not a multiple of 4)"],
    ["base64 padding in the middle", base({ messages: [user({ type: "image", data: "AA==AAAA", mimeType: "image/png" })] }), "messages[0].content.data: is not canonical base64 (characters outside A-Z a-z 0-9 + /, or padding before the end)"],
    ["base64 url-safe alphabet", base({ messages: [user({ type: "image", data: "ab-_", mimeType: "image/png" })] }), "messages[0].content.data: is not canonical base64 (characters outside A-Z a-z 0-9 + /, or padding before the end)"],
    ["base64 with whitespace", base({ messages: [user({ type: "image", data: "AAAA\nAAAA", mimeType: "image/png" })] }), "messages[0].content.data: is not canonical base64 (length 9 is not a multiple of 4)"],
    ["base64 three padding characters", base({ messages: [user({ type: "audio", data: "A===", mimeType: "audio/wav" })] }), "messages[0].content.data: is not canonical base64 (characters outside A-Z a-z 0-9 + /, or padding before the end)"],
    ["image over 20 MiB decoded", base({ messages: [user({ type: "image", data: "A".repeat(27_962_028), mimeType: "image/jpeg" })] }), "messages[0].content.data: image is 20971521 bytes decoded, over the 20971520-byte limit"],
    ["audio over its limit", base({ messages: [user({ type: "audio", data: "AAAAAAAA", mimeType: "audio/wav" })] }), "messages[0].content.data: audio is 6 bytes decoded, over the 5-byte limit", { maxAudioBytes: 5 }],
    ["temperature not a number", base({ temperature: "hot" }), "temperature: must be a number"],
    ["stopSequences not strings", base({ stopSequences: ["a", 1] }), "stopSequences: must be an array of strings"],
    ["includeContext unknown", base({ includeContext: "everything" }), 'includeContext: must be "none", "thisServer" or "allServers", got "everything"'],
    ["modelPreferences not an object", base({ modelPreferences: [] }), "modelPreferences: must be an object"],
    ["hints not an array", base({ modelPreferences: { hints: "claude" } }), "modelPreferences.hints: must be an array"],
    ["hint name not a string", base({ modelPreferences: { hints: [{ name: 3 }] } }), "modelPreferences.hints[0].name: must be a string"],
    ["priority out of range", base({ modelPreferences: { costPriority: 2 } }), "modelPreferences.costPriority: must be between 0 and 1"],
    ["priority not a number", base({ modelPreferences: { speedPriority: "fast" } }), "modelPreferences.speedPriority: must be a number"],
  ];

  for (const [name, params, message, limits] of cases) {
    it(name, () => {
      const error = rejection(params, limits);
      expect(error.message).toBe(message);
      expect(error.data).toMatchObject({ path: message.slice(0, message.indexOf(":")) });
    });
  }

  it("size rejections carry the measured bytes and the limit", () => {
    expect(rejection(base({ messages: [user(text("héllo"))] }), { maxTextBytes: 5 }).data).toEqual({ path: "messages[0].content.text", bytes: 6, limit: 5 });
  });
});

describe("normalizeMime", () => {
  it("lower-cases and drops parameters; refuses what is not type/subtype", () => {
    expect(normalizeMime("Image/PNG")).toBe("image/png");
    expect(normalizeMime("audio/wav; codecs=1")).toBe("audio/wav");
    expect(normalizeMime('audio/ogg; codecs="opus"')).toBe("audio/ogg");
    for (const bad of ["", "png", "image/", "/png", "image/png/x", "image png", "image/png;"]) expect(normalizeMime(bad), bad).toBeUndefined();
  });
});

describe("base64 properties (fast-check)", () => {
  const audio = (data: string) => ({ messages: [user({ type: "audio", data, mimeType: "audio/wav" })], maxTokens: 1 });

  it("every standard encoding of 1..300 bytes is accepted and its decoded size is the byte count", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (bytes) => {
        const data = btoa(String.fromCharCode(...bytes));
        expect(validateSamplingRequest(audio(data)).audioBytes).toBe(bytes.length);
      }),
    );
  });

  it("a character outside the alphabet anywhere, or padding before the end, is refused", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 3, maxLength: 60 }),
        fc.constantFrom("-", "_", " ", "\n", "=", "é", ".", "*"),
        fc.nat(),
        (bytes, bad, at) => {
          const data = btoa(String.fromCharCode(...bytes));
          const body = data.replace(/=+$/, "");
          const i = at % (body.length - 1);
          const mangled = `${body.slice(0, i)}${bad}${body.slice(i + 1)}${data.slice(body.length)}`;
          expect(() => validateSamplingRequest(audio(mangled))).toThrow(/not canonical base64/);
        },
      ),
    );
  });

  it("a length that is not a multiple of 4 is refused", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 3 }), (bytes, cut) => {
        const data = btoa(String.fromCharCode(...bytes)).slice(0, -cut);
        if (data.length === 0) return;
        expect(() => validateSamplingRequest(audio(data))).toThrow(/length \d+ is not a multiple of 4/);
      }),
    );
  });
});
