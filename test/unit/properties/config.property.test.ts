/**
 * Config parsing under generated input: parseServerConfig either returns a value its schema
 * accepts or throws a McpEdgeError (400 class); SessionBodySchema never throws; merging
 * parsed entries gives a usable config or a reason, never an exception; and no input, however
 * it spells `__proto__`, reaches Object.prototype or a merged object's prototype.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  deepMerge,
  LocalServerConfigSchema,
  mergeServerConfig,
  parseDeploymentServers,
  parseServerConfig,
  RemoteServerConfigSchema,
  ServerConfigSchema,
  SERVER_NAME_PATTERN,
  SessionBodySchema,
} from "../../../src/core/config.js";
import { McpEdgeError } from "../../../src/core/errors.js";
import { anyKey, anyNumber, anyString, anyValue, expectNoPollution, expectTypedOutcome, ownObject, pollutionPayload, RUNS } from "./arbitraries.js";

afterEach(expectNoPollution);

const FIELDS = ["type", "url", "headers", "oauth", "timeout", "enabled", "sampling", "bridge", "server", "command", "environment", "cwd"] as const;

/** Field values near the valid ones, so generated entries often pass and exercise merging. */
const fieldValue: Record<(typeof FIELDS)[number], fc.Arbitrary<unknown>> = {
  type: fc.oneof(fc.constantFrom("remote", "local", undefined, "REMOTE", ""), anyValue),
  url: fc.oneof(fc.constantFrom("https://example.com/mcp", "http://127.0.0.1:1/mcp", "not a url", ""), anyString),
  headers: fc.oneof(ownObject(fc.oneof(anyString, fc.constant("v"))), anyValue),
  oauth: fc.oneof(fc.constant(false), fc.record({ clientId: anyString, scope: anyString }, { requiredKeys: [] }), anyValue),
  timeout: fc.oneof(anyNumber, fc.record({ startup: anyNumber, request: anyNumber }, { requiredKeys: [] }), anyValue),
  enabled: fc.oneof(fc.boolean(), anyValue),
  sampling: fc.oneof(fc.constantFrom("deny", "ask", "allow"), anyValue),
  bridge: fc.oneof(fc.constant("laptop"), anyString),
  server: fc.oneof(fc.constant("fs"), anyString),
  command: fc.oneof(fc.array(anyString, { maxLength: 3 }), anyString, anyValue),
  environment: fc.oneof(ownObject(anyString), anyValue),
  cwd: anyString,
};

const configLike: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.subarray([...FIELDS]), ownObject(anyValue)).chain(([fields, extra]) =>
      fc.tuple(...fields.map((f) => fieldValue[f])).map((values) => {
        const entry = Object.fromEntries(fields.map((f, i) => [f, values[i]]));
        // Sometimes an extra (unknown or prototype) key rides along.
        return Object.keys(extra).length % 2 === 0 ? entry : { ...entry, ...extra };
      }),
    ) },
  { weight: 1, arbitrary: anyValue },
  { weight: 1, arbitrary: fc.constant(pollutionPayload()) },
);

describe("parseServerConfig (property)", () => {
  it("returns a value its schema accepts, or throws a McpEdgeError with a 400 code", () => {
    fc.assert(
      fc.property(anyString, configLike, (name, input) => {
        const outcome = expectTypedOutcome(() => parseServerConfig(name, input));
        if (outcome.ok) expect(ServerConfigSchema.safeParse(outcome.value).success).toBe(true);
        else {
          const error = outcome.error as McpEdgeError;
          expect(error.status).toBe(400);
          expect(["invalidConfig", "unknownKeys"]).toContain(error.code);
          expect(typeof error.message).toBe("string");
        }
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("an entry that parses is a plain object whose prototype is Object.prototype and that has no prototype keys", () => {
    fc.assert(
      fc.property(configLike, (input) => {
        const outcome = expectTypedOutcome(() => parseServerConfig("s", input));
        if (!outcome.ok) return;
        expect(Object.getPrototypeOf(outcome.value)).toBe(Object.prototype);
        for (const key of ["__proto__", "constructor", "prototype"]) expect(Object.hasOwn(outcome.value, key)).toBe(false);
      }),
      { numRuns: RUNS.cheap },
    );
  });
});

describe("SessionBodySchema (property)", () => {
  it("never throws: a parse result for anything", () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, fc.record({ servers: ownObject(configLike), roots: fc.oneof(fc.array(anyString, { maxLength: 70 }), anyValue) }, { requiredKeys: [] })), (body) => {
        const result = SessionBodySchema.safeParse(body);
        expect(typeof result.success).toBe("boolean");
      }),
      { numRuns: RUNS.cheap },
    );
  });
});

describe("mergeServerConfig (property)", () => {
  const parsedEntry = configLike
    .map((input) => expectTypedOutcome(() => parseServerConfig("s", input)))
    .map((outcome) => (outcome.ok ? outcome.value : undefined));

  it("merging any two parsed entries gives a config its schema accepts, or a reason; never an exception", () => {
    fc.assert(
      fc.property(anyString, parsedEntry, parsedEntry, (name, base, override) => {
        const merged = mergeServerConfig(name, base, override);
        if (merged.ok) {
          const schema = merged.config.type === "remote" ? RemoteServerConfigSchema : LocalServerConfigSchema;
          expect(schema.safeParse(merged.config).success).toBe(true);
          expect(Object.getPrototypeOf(merged.config)).toBe(Object.prototype);
        } else {
          expect(typeof merged.error).toBe("string");
          expect(typeof merged.enabled).toBe("boolean");
        }
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("deepMerge of arbitrary values never throws, never pollutes, and keeps prototype keys as plain own data", () => {
    fc.assert(
      fc.property(anyValue, fc.oneof(anyValue, fc.constant(pollutionPayload())), (base, override) => {
        const merged = deepMerge(base, override);
        if (typeof merged === "object" && merged !== null && !Array.isArray(merged)) {
          expect([Object.prototype, null]).toContain(Object.getPrototypeOf(merged));
        }
      }),
      { numRuns: RUNS.medium },
    );
  });

  it("regression: a `__proto__` key in an override cannot give a merged entry a type it does not have", () => {
    const override = JSON.parse('{"__proto__":{"type":"remote","url":"http://169.254.169.254/"}}') as Record<string, unknown>;
    const merged = deepMerge({ enabled: true }, override) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged.type).toBeUndefined();
    expect(merged.url).toBeUndefined();
  });
});

describe("parseDeploymentServers (property)", () => {
  it("any text: a map of parsed entries or a McpEdgeError", () => {
    const text = fc.oneof(
      anyString,
      fc.json(),
      ownObject(configLike).map((o) => JSON.stringify(o) ?? ""),
      fc.constant('{"__proto__":{"type":"remote","url":"https://x.example/"}}'),
    );
    fc.assert(
      fc.property(text, (json) => {
        const outcome = expectTypedOutcome(() => parseDeploymentServers(json));
        if (outcome.ok) for (const entry of Object.values(outcome.value)) expect(ServerConfigSchema.safeParse(entry).success).toBe(true);
      }),
      { numRuns: RUNS.medium },
    );
  });

  it("keys of any spelling are server names or a typed refusal, never the map's prototype", () => {
    fc.assert(
      fc.property(anyKey, (name) => {
        const outcome = expectTypedOutcome(() => parseDeploymentServers(JSON.stringify({ [name]: { type: "remote", url: "https://x.example/" } })));
        expect(outcome.ok).toBe(SERVER_NAME_PATTERN.test(name));
        if (!outcome.ok) return;
        expect(Object.keys(outcome.value)).toEqual([name]);
        expect(Object.getPrototypeOf(outcome.value)).toBe(Object.prototype);
      }),
      { numRuns: RUNS.cheap },
    );
  });

  it("regression: a deployment server named __proto__ is refused instead of becoming the map's prototype", () => {
    expect(() => parseDeploymentServers('{"__proto__":{"type":"remote","url":"https://x.example/"}}')).toThrowError(/not __proto__/);
    expect(() => parseServerConfig("__proto__", { type: "remote", url: "https://x.example/" })).toThrowError(McpEdgeError);
  });
});
