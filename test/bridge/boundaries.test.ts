/**
 * The bridge may reuse the pure core (src/core) but nothing of the Worker (src/http,
 * src/app.ts, durable-objects): those pull in Workers-only APIs a Node daemon cannot load.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";

const bridgeSrc = path.join(ROOT, "bridge/src");
const files = readdirSync(bridgeSrc).filter((f) => f.endsWith(".ts"));

function relativeImports(source: string): string[] {
  return [...source.matchAll(/\bfrom\s*["']([^"']+)["']/g)].map((m) => m[1]!).filter((s) => s.startsWith("."));
}

describe("bridge module boundaries", () => {
  it("finds the bridge modules", () => {
    expect(files).toEqual(expect.arrayContaining(["config.ts", "child-env.ts", "redact.ts", "backoff.ts", "observing-stdio-transport.ts"]));
  });

  it.each(files)("%s imports only bridge modules and src/core", (file) => {
    for (const specifier of relativeImports(readFileSync(path.join(bridgeSrc, file), "utf8"))) {
      const target = path.relative(ROOT, path.resolve(bridgeSrc, specifier));
      expect(target.startsWith("bridge/src/") || target.startsWith("src/core/"), `${file} imports ${specifier}`).toBe(true);
    }
  });
});
