/**
 * The SDK client's JSON Schema validator for Workers: @cfworker/json-schema (no code
 * generation, which Workers forbid), made forgiving of schemas it cannot resolve: a
 * tool whose `outputSchema` fails to compile is still listed and called, unvalidated.
 */
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

export function safeJsonSchemaValidator(): jsonSchemaValidator {
  const inner = new CfWorkerJsonSchemaValidator();
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      let validate: JsonSchemaValidator<T>;
      try {
        validate = inner.getValidator<T>(schema);
      } catch {
        return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
      }
      return (input) => {
        try {
          return validate(input);
        } catch {
          // An unresolvable $ref throws at validation time: treat the schema as absent.
          return { valid: true, data: input as T, errorMessage: undefined };
        }
      };
    },
  };
}
