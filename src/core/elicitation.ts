/**
 * Validation of a person's answer to a form-mode `elicitation/create` against the server's
 * requested schema — MCP's restricted subset of JSON Schema: a flat object whose properties
 * are strings (minLength/maxLength, format email | uri | date | date-time), numbers or
 * integers (minimum/maximum), booleans, single-select enums (`enum`, titled `oneOf` consts,
 * legacy `enumNames`) and multi-select arrays (`items.enum` or `items.anyOf` consts,
 * minItems/maxItems). Defaults fill absent fields, required fields are enforced, unknown
 * fields are refused. Interpreted directly: no code generation, so it runs in Workers.
 */
import { z } from "zod";

const common = { title: z.string().optional(), description: z.string().optional() };
const constOption = z.object({ const: z.string(), title: z.string().optional() });

const StringFieldSchema = z.object({
  type: z.literal("string"),
  ...common,
  minLength: z.number().int().nonnegative().optional(),
  maxLength: z.number().int().nonnegative().optional(),
  format: z.enum(["email", "uri", "date", "date-time"]).optional(),
  enum: z.array(z.string()).optional(),
  enumNames: z.array(z.string()).optional(),
  oneOf: z.array(constOption).optional(),
  default: z.string().optional(),
});
const NumberFieldSchema = z.object({
  type: z.enum(["number", "integer"]),
  ...common,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});
const BooleanFieldSchema = z.object({ type: z.literal("boolean"), ...common, default: z.boolean().optional() });
const MultiSelectFieldSchema = z.object({
  type: z.literal("array"),
  ...common,
  minItems: z.number().int().nonnegative().optional(),
  maxItems: z.number().int().nonnegative().optional(),
  items: z.union([z.object({ type: z.literal("string"), enum: z.array(z.string()) }), z.object({ anyOf: z.array(constOption) })]),
  default: z.array(z.string()).optional(),
});

export const ElicitationFieldSchema = z.discriminatedUnion("type", [StringFieldSchema, NumberFieldSchema, BooleanFieldSchema, MultiSelectFieldSchema]);
export type ElicitationField = z.infer<typeof ElicitationFieldSchema>;

export const ElicitationSchemaSchema = z.object({
  type: z.literal("object"),
  properties: z.record(z.string(), ElicitationFieldSchema),
  required: z.array(z.string()).optional(),
});
export type ElicitationSchema = z.infer<typeof ElicitationSchemaSchema>;

export type ElicitationValue = string | number | boolean | string[];

export interface ElicitationIssue {
  field: string;
  message: string;
}

export type ElicitationValidation =
  | { success: true; value: Record<string, ElicitationValue> }
  | { success: false; error: string; issues: ElicitationIssue[] };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function formatProblem(format: "email" | "uri" | "date" | "date-time", text: string): string | undefined {
  switch (format) {
    case "email":
      return EMAIL.test(text) ? undefined : "is not an email address";
    case "uri":
      return /^[a-z][a-z0-9+.-]*:/i.test(text) && URL.canParse(text) ? undefined : "is not an absolute URI";
    case "date":
      return validDate(text) ? undefined : "is not a date (YYYY-MM-DD)";
    case "date-time": {
      const match = DATE_TIME.exec(text);
      const ok = match !== null && validDate(match[1]!) && Number(match[2]) < 24 && Number(match[3]) < 60 && Number(match[4]) < 61;
      return ok ? undefined : "is not an RFC 3339 date-time";
    }
  }
}

function allowedStrings(field: Extract<ElicitationField, { type: "string" }>): string[] | undefined {
  if (field.oneOf) return field.oneOf.map((option) => option.const);
  return field.enum;
}

/** Why a value does not fit its field, or undefined when it does. */
function fieldProblem(field: ElicitationField, value: unknown): string | undefined {
  switch (field.type) {
    case "string": {
      if (typeof value !== "string") return "must be a string";
      const allowed = allowedStrings(field);
      if (allowed && !allowed.includes(value)) return `must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
      const length = Array.from(value).length;
      if (field.minLength !== undefined && length < field.minLength) return `must be at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && length > field.maxLength) return `must be at most ${field.maxLength} characters`;
      return field.format ? formatProblem(field.format, value) : undefined;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.type === "integer" && !Number.isInteger(value)) return "must be an integer";
      if (field.minimum !== undefined && value < field.minimum) return `must be ≥ ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be ≤ ${field.maximum}`;
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be a boolean";
    case "array": {
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) return "must be an array of strings";
      const allowed = "enum" in field.items ? field.items.enum : field.items.anyOf.map((option) => option.const);
      const bad = value.filter((item) => !allowed.includes(item));
      if (bad.length > 0) return `has values not among the options: ${bad.map((b) => JSON.stringify(b)).join(", ")}`;
      if (new Set(value).size !== value.length) return "has repeated values";
      if (field.minItems !== undefined && value.length < field.minItems) return `must have at least ${field.minItems} items`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `must have at most ${field.maxItems} items`;
      return undefined;
    }
  }
}

function failure(issues: ElicitationIssue[]): ElicitationValidation {
  return { success: false, error: issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message)).join("; "), issues };
}

/** The content a person submitted, checked against the server's requested schema, with defaults filled in. */
export function validateElicitationContent(requestedSchema: unknown, content: unknown): ElicitationValidation {
  const schema = ElicitationSchemaSchema.safeParse(requestedSchema);
  if (!schema.success) {
    const first = schema.error.issues[0];
    return failure([{ field: "", message: `the requested schema is not an MCP elicitation schema (${first ? `${first.path.join(".")}: ${first.message}` : "invalid"})` }]);
  }
  const { properties, required = [] } = schema.data;
  const given = content ?? {};
  if (typeof given !== "object" || given === null || Array.isArray(given)) return failure([{ field: "", message: "content must be an object" }]);

  const issues: ElicitationIssue[] = [];
  const value: Record<string, ElicitationValue> = {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(properties, key)) issues.push({ field: key, message: "is not a field of the requested schema" });
  }
  for (const [key, field] of Object.entries(properties)) {
    const raw = (given as Record<string, unknown>)[key] ?? field.default;
    if (raw === undefined) {
      if (required.includes(key)) issues.push({ field: key, message: "is required" });
      continue;
    }
    const problem = fieldProblem(field, raw);
    if (problem) issues.push({ field: key, message: problem });
    else value[key] = raw as ElicitationValue;
  }
  return issues.length > 0 ? failure(issues) : { success: true, value };
}
