/**
 * A person's elicitation answer against MCP's restricted schemas: each field kind and
 * constraint accepted and refused, defaults filled in, required and unknown fields.
 */
import { describe, expect, it } from "vitest";
import { validateElicitationContent } from "../../src/core/elicitation.js";

const schema = (properties: Record<string, unknown>, required?: string[]) => ({ type: "object", properties, ...(required ? { required } : {}) });

function ok(requested: unknown, content: unknown) {
  const result = validateElicitationContent(requested, content);
  if (!result.success) throw new Error(`expected success, got: ${result.error}`);
  return result.value;
}
function problem(requested: unknown, content: unknown): string {
  const result = validateElicitationContent(requested, content);
  if (result.success) throw new Error(`expected a failure for ${JSON.stringify(content)}`);
  return result.error;
}

describe("validateElicitationContent", () => {
  it("server-everything's form: strings, numbers, booleans, enums, with defaults filled in", () => {
    const requested = schema(
      {
        name: { type: "string", title: "Full name", minLength: 2 },
        check: { type: "boolean", default: false },
        email: { type: "string", format: "email" },
        integer: { type: "integer", minimum: 1, maximum: 100, default: 42 },
        number: { type: "number" },
        untitledSingleSelectEnum: { type: "string", enum: ["a", "b"], default: "a" },
        titledSingleSelectEnum: { type: "string", oneOf: [{ const: "x", title: "Ex" }, { const: "y", title: "Why" }] },
        legacyEnum: { type: "string", enum: ["l1", "l2"], enumNames: ["L one", "L two"] },
        untitledMultipleSelectEnum: { type: "array", items: { type: "string", enum: ["r", "g", "b"] }, minItems: 1, maxItems: 2 },
        titledMultipleSelectEnum: { type: "array", items: { anyOf: [{ const: "p", title: "P" }, { const: "q", title: "Q" }] }, default: ["p"] },
      },
      ["name"],
    );
    expect(ok(requested, { name: "Ada", email: "ada@example.org", number: 2.5, titledSingleSelectEnum: "y", legacyEnum: "l2", untitledMultipleSelectEnum: ["r", "b"] })).toEqual({
      name: "Ada",
      check: false,
      email: "ada@example.org",
      integer: 42,
      number: 2.5,
      untitledSingleSelectEnum: "a",
      titledSingleSelectEnum: "y",
      legacyEnum: "l2",
      untitledMultipleSelectEnum: ["r", "b"],
      titledMultipleSelectEnum: ["p"],
    });
  });

  it("required fields must be there unless a default fills them", () => {
    expect(problem(schema({ name: { type: "string" } }, ["name"]), {})).toBe("name: is required");
    expect(ok(schema({ name: { type: "string", default: "anon" } }, ["name"]), {})).toEqual({ name: "anon" });
    expect(ok(schema({ name: { type: "string" } }), undefined)).toEqual({});
  });

  it("unknown fields are refused, and every problem is reported", () => {
    expect(problem(schema({ a: { type: "string" }, b: { type: "number" } }, ["a"]), { b: "x", c: 1 })).toBe("c: is not a field of the requested schema; a: is required; b: must be a number");
  });

  const cases: Array<[string, unknown, unknown, string]> = [
    ["string type", { type: "string" }, 5, "must be a string"],
    ["minLength (code points)", { type: "string", minLength: 3 }, "😀😀", "must be at least 3 characters"],
    ["maxLength", { type: "string", maxLength: 2 }, "abc", "must be at most 2 characters"],
    ["email", { type: "string", format: "email" }, "not-an-email", "is not an email address"],
    ["uri", { type: "string", format: "uri" }, "/relative/path", "is not an absolute URI"],
    ["date", { type: "string", format: "date" }, "2026-02-30", "is not a date (YYYY-MM-DD)"],
    ["date-time", { type: "string", format: "date-time" }, "2026-11-30 25:00:00Z", "is not an RFC 3339 date-time"],
    ["date-time without zone", { type: "string", format: "date-time" }, "2026-11-30T05:00:00", "is not an RFC 3339 date-time"],
    ["enum", { type: "string", enum: ["a", "b"] }, "c", 'must be one of "a", "b"'],
    ["oneOf", { type: "string", oneOf: [{ const: "x", title: "X" }] }, "y", 'must be one of "x"'],
    ["number type", { type: "number" }, "1", "must be a number"],
    ["integer", { type: "integer" }, 1.5, "must be an integer"],
    ["minimum", { type: "number", minimum: 0 }, -1, "must be ≥ 0"],
    ["maximum", { type: "integer", maximum: 10 }, 11, "must be ≤ 10"],
    ["boolean", { type: "boolean" }, "true", "must be a boolean"],
    ["multi-select type", { type: "array", items: { type: "string", enum: ["a"] } }, "a", "must be an array of strings"],
    ["multi-select options", { type: "array", items: { type: "string", enum: ["a"] } }, ["a", "z"], 'has values not among the options: "z"'],
    ["multi-select titled options", { type: "array", items: { anyOf: [{ const: "a", title: "A" }] } }, ["b"], 'has values not among the options: "b"'],
    ["multi-select repeats", { type: "array", items: { type: "string", enum: ["a", "b"] } }, ["a", "a"], "has repeated values"],
    ["minItems", { type: "array", minItems: 2, items: { type: "string", enum: ["a", "b"] } }, ["a"], "must have at least 2 items"],
    ["maxItems", { type: "array", maxItems: 1, items: { type: "string", enum: ["a", "b"] } }, ["a", "b"], "must have at most 1 items"],
  ];
  for (const [name, field, value, message] of cases) {
    it(`refuses: ${name}`, () => {
      expect(problem(schema({ f: field }), { f: value })).toBe(`f: ${message}`);
    });
  }

  it("accepts the formats when they are right", () => {
    const requested = schema({ e: { type: "string", format: "email" }, u: { type: "string", format: "uri" }, d: { type: "string", format: "date" }, t: { type: "string", format: "date-time" } });
    const value = { e: "a@b.co", u: "https://example.org/x?y", d: "2024-02-29", t: "2026-11-30T05:00:00.123+01:00" };
    expect(ok(requested, value)).toEqual(value);
  });

  it("a requested schema outside MCP's subset is refused, not guessed at", () => {
    expect(problem({ type: "object", properties: { nested: { type: "object", properties: {} } } }, {})).toMatch(/^the requested schema is not an MCP elicitation schema/);
    expect(problem({ type: "array" }, {})).toMatch(/^the requested schema is not an MCP elicitation schema/);
  });

  it("content must be an object", () => {
    expect(problem(schema({}), ["a"])).toBe("content must be an object");
    expect(problem(schema({}), "x")).toBe("content must be an object");
  });

  it("failures list their issues by field", () => {
    const result = validateElicitationContent(schema({ a: { type: "boolean" } }, ["a"]), {});
    expect(result).toEqual({ success: false, error: "a: is required", issues: [{ field: "a", message: "is required" }] });
  });
});
