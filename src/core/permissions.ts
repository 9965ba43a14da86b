/**
 * The session's `permission` ruleset: patterns over names → allow | ask | deny.
 *
 * Shape: `{ mcp_sampling?: Rules, mcp_elicitation?: Rules, tools?: Rules, …tool patterns }`.
 * `mcp_sampling` and `mcp_elicitation` match server names; tool rules match model-facing
 * tool names and may be written either under `tools` or directly at the top level
 * (`{"github_*":"deny","docs_search":"allow"}`): every key other than the three above is a
 * tool pattern, and both kinds are read in the order they appear.
 *
 * Patterns are anchored; `*` matches any run of characters (including none), everything
 * else is literal. The last matching rule in insertion order wins. (JavaScript orders
 * integer-like keys such as "42" first; such patterns are literal tool names anyway.)
 */
import { z } from "zod";

export const PermissionActionSchema = z.enum(["allow", "ask", "deny"]);
export type PermissionAction = z.infer<typeof PermissionActionSchema>;

export const PermissionRulesSchema = z.record(z.string().min(1).max(256), PermissionActionSchema);
export type PermissionRules = z.infer<typeof PermissionRulesSchema>;

const SECTION_KEYS = ["mcp_sampling", "mcp_elicitation", "tools"] as const;

export interface PermissionConfig {
  mcp_sampling?: PermissionRules;
  mcp_elicitation?: PermissionRules;
  tools?: PermissionRules;
  [toolPattern: string]: PermissionAction | PermissionRules | undefined;
}

const isSection = (key: string) => (SECTION_KEYS as readonly string[]).includes(key);

// A record, not an object schema with a catch-all: zod would put the declared keys first
// and so lose the order the rules were written in, which decides who wins.
export const PermissionConfigSchema: z.ZodType<PermissionConfig> = z
  .record(z.string().min(1).max(256), z.unknown())
  .superRefine((config, ctx) => {
    for (const [key, value] of Object.entries(config)) {
      const result = (isSection(key) ? PermissionRulesSchema : PermissionActionSchema).safeParse(value);
      if (result.success) continue;
      for (const issue of result.error.issues) ctx.addIssue({ code: "custom", path: [key, ...issue.path], message: isSection(key) ? issue.message : `tool rule: ${issue.message}` });
    }
  }) as z.ZodType<PermissionConfig>;

const compiled = new Map<string, RegExp>();

/** A `*` pattern as an anchored regular expression (memoized; patterns come from a few configs). */
export function patternToRegExp(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) {
    const body = pattern
      .split("*")
      .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    regex = new RegExp(`^${body}$`, "s");
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** The action of the last rule whose pattern matches `name`, or undefined when none does. */
export function matchRule(rules: PermissionRules | undefined, name: string): PermissionAction | undefined {
  let action: PermissionAction | undefined;
  for (const [pattern, value] of Object.entries(rules ?? {})) if (patternToRegExp(pattern).test(name)) action = value;
  return action;
}

/** The tool rules of a config, `tools` entries and top-level patterns in the order written. */
export function toolRules(config: PermissionConfig | undefined): PermissionRules {
  const rules: PermissionRules = {};
  for (const [key, value] of Object.entries(config ?? {})) {
    if (key === "tools" && typeof value === "object") {
      for (const [pattern, action] of Object.entries(value)) {
        delete rules[pattern];
        rules[pattern] = action;
      }
    } else if (!isSection(key) && typeof value === "string") {
      delete rules[key];
      rules[key] = value;
    }
  }
  return rules;
}

const SEVERITY: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };

/** Both gates for a server's sampling: a deny from either wins, then an ask from either, else allow. */
export function samplingDecision(serverPolicy: PermissionAction = "ask", rules: PermissionRules | undefined, server: string): PermissionAction {
  const rule = matchRule(rules, server);
  if (rule === undefined) return serverPolicy;
  return SEVERITY[rule] > SEVERITY[serverPolicy] ? rule : serverPolicy;
}

/** Elicitation always needs a person's answer, so `allow` means the same as `ask`; only deny refuses. */
export function elicitationDecision(rules: PermissionRules | undefined, server: string): "ask" | "deny" {
  return matchRule(rules, server) === "deny" ? "deny" : "ask";
}

export function toolDecision(rules: PermissionRules | undefined, toolName: string): PermissionAction {
  return matchRule(rules, toolName) ?? "allow";
}

/** A tool whose matching rule is deny is not listed at all. */
export function hiddenFromListing(rules: PermissionRules | undefined, toolName: string): boolean {
  return matchRule(rules, toolName) === "deny";
}
