/**
 * Type-checks code mode scripts with the real TypeScript compiler (tsgo, TypeScript 7):
 * the generated declarations and a script (wrapped as the body of an async function, as
 * the sandbox runs it) are written to a temp dir and checked with `tsc --noEmit` in strict
 * mode, with ES2023 only (no DOM, no Node: the sandbox has neither).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const TSC = fileURLToPath(new URL("../../node_modules/.bin/tsc", import.meta.url));

const TSCONFIG = {
  compilerOptions: { strict: true, noEmit: true, target: "es2023", lib: ["es2023"], types: [], skipLibCheck: false, noUncheckedIndexedAccess: true },
  files: ["declarations.d.ts", "script.ts"],
};

export interface TypecheckResult {
  ok: boolean;
  /** The compiler's diagnostics. */
  output: string;
}

/** Checks `script` (a function body) against `declarations`. */
export function typecheckScript(declarations: string, script: string): TypecheckResult {
  const dir = mkdtempSync(join(tmpdir(), "mcp-edge-decls-"));
  try {
    writeFileSync(join(dir, "declarations.d.ts"), declarations);
    // A module, so its names stay local; the declarations file is global (no imports or exports).
    writeFileSync(join(dir, "script.ts"), `export async function main(): Promise<unknown> {\n${script}\n}\n`);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
    const run = spawnSync(TSC, ["--noEmit", "-p", dir], { encoding: "utf8", timeout: 60_000 });
    return { ok: run.status === 0, output: `${run.stdout ?? ""}${run.stderr ?? ""}${run.error ? String(run.error) : ""}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
