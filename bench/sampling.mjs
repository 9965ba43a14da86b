/**
 * Sampling core figures: request validation of a maximal image (20 MiB decoded), model
 * selection over a large catalog, and what runSampling adds over a bare AI SDK
 * `streamText` loop (stall timer re-armed per chunk, heartbeat, result mapping) for one
 * long stream from the scripted OpenAI-compatible server on 127.0.0.1. Plain Node; the
 * TypeScript sources are bundled with esbuild into node_modules/.cache first.
 *
 *   node bench/sampling.mjs        (BENCH_RUNS=N repetitions per figure, default 15)
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { intEnv, root } from "./lib.mjs";

const RUNS = intEnv("BENCH_RUNS", 15);
const out = join(root, "node_modules/.cache/mcp-edge-bench-sampling.mjs");
mkdirSync(join(root, "node_modules/.cache"), { recursive: true });
await build({
  stdin: {
    contents: [
      'export * from "./src/core/sampling/request.ts";',
      'export * from "./src/core/sampling/select.ts";',
      'export * from "./src/core/sampling/run.ts";',
      'export * from "./src/core/sampling/providers.ts";',
      'export * from "./src/core/sampling/provider-factory.ts";',
      'export * from "./test/support/scripted-llm.ts";',
      'export { streamText } from "ai";',
    ].join("\n"),
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  outfile: out,
  logLevel: "silent",
});
const m = await import(pathToFileURL(out).href);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function time(fn, runs = RUNS) {
  const samples = [];
  await fn(); // warm-up
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

// 1. Validation of the largest image a request may carry.
const bigImage = "A".repeat(Math.floor((20 * 1024 * 1024) / 3) * 4);
const bigRequest = { messages: [{ role: "user", content: [{ type: "text", text: "describe" }, { type: "image", data: bigImage, mimeType: "image/png" }] }], maxTokens: 100 };
const validateMs = await time(() => m.validateSamplingRequest(bigRequest));

// 2. Selection over 20 providers × 10 models with hints that tie and priorities.
const providers = {};
for (let p = 0; p < 20; p++) {
  const models = {};
  for (let k = 0; k < 10; k++) models[`model-${k}`] = { input: ["text", "image"], cost: k, speed: 10 - k, intelligence: (k * 7) % 10 };
  providers[`prov${p}`] = { kind: p % 2 ? "google" : "openai-compatible", baseURL: "http://127.0.0.1:1/v1", models };
}
const parsed = m.ProvidersSchema.parse(providers);
const selectRequest = m.validateSamplingRequest({
  messages: [{ role: "user", content: { type: "text", text: "hi" } }],
  maxTokens: 10,
  modelPreferences: { hints: [{ name: "nomatch" }, { name: "model-" }], costPriority: 0.3, intelligencePriority: 0.7 },
});
const SELECTS = 1000;
const selectMs = (await time(() => { for (let i = 0; i < SELECTS; i++) m.selectModel({ providers: parsed, request: selectRequest }); })) / SELECTS;

// 3. runSampling vs a bare streamText loop over the same 2,000-chunk stream.
const llm = await m.startScriptedLlm();
const CHUNKS = 2000;
const text = "word ".repeat(CHUNKS);
const provider = m.ProviderSchema.parse({ kind: "openai-compatible", baseURL: llm.baseURL, models: { chat: {} } });
const request = m.validateSamplingRequest({ messages: [{ role: "user", content: { type: "text", text: "go" } }], maxTokens: 5000 });
const model = () => m.createLanguageModel("local", provider, "chat");
const script = () => llm.script([() => ({ text })]);
const bareMs = await time(async () => {
  script();
  const result = m.streamText({ model: model(), messages: request.messages, maxRetries: 1 });
  let got = "";
  for await (const part of result.fullStream) if (part.type === "text-delta") got += part.text;
  if (got !== text) throw new Error("bare stream lost text");
});
const runMs = await time(async () => {
  script();
  const result = await m.runSampling({ model: model(), modelId: "local/chat", request, spec: provider.models.chat, onHeartbeat: () => {} });
  if (result.content.text !== text) throw new Error("runSampling lost text");
});
await llm.close();

const rows = [
  ["validate a 20 MiB image request", `${validateMs.toFixed(1)} ms`],
  ["selectModel, 200 models, hint tie + priorities", `${(selectMs * 1000).toFixed(1)} µs`],
  [`bare streamText, ${CHUNKS} chunks (loopback)`, `${bareMs.toFixed(1)} ms`],
  [`runSampling, same stream`, `${runMs.toFixed(1)} ms (${(((runMs - bareMs) / CHUNKS) * 1000).toFixed(2)} µs/chunk over bare)`],
];
for (const [name, value] of rows) console.log(`${name.padEnd(48)} ${value}`);
console.log(JSON.stringify({ validateMs: +validateMs.toFixed(2), selectUs: +(selectMs * 1000).toFixed(2), bareMs: +bareMs.toFixed(2), runMs: +runMs.toFixed(2), chunks: CHUNKS, runs: RUNS }));
