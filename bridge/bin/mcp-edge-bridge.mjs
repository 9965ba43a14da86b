#!/usr/bin/env node
// Launcher for `npx mcp-edge-bridge`: the CLI is bundled into ../dist by `npm run build:bridge`
// (which `npm install` runs as "prepare"). Kept tiny and committed; the bundle is not.
import { existsSync } from "node:fs";

const cli = new URL("../dist/mcp-edge-bridge.mjs", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write("mcp-edge-bridge is not built yet: run npm run build:bridge (or npm install) in the mcp-edge repository\n");
  process.exit(1);
}
await import(cli.href);
