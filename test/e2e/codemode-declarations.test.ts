/**
 * Code mode's declarations for real servers type-check with the real compiler: the tool
 * lists of server-everything and server-filesystem (each started over stdio, a temp dir
 * for the filesystem) are named as mcp-edge names them (the catalog), declared, and a
 * script using them is checked with tsgo; wrong calls must fail to compile.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema, ToolListChangedNotificationSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalog, toCachedTool, type Catalog } from "../../src/core/catalog.js";
import { codeModeDeclarations } from "../../src/core/codemode/declarations.js";
import { executeTool } from "../../src/core/codemode/execute-tool.js";
import { META_TOOL_NAMES } from "../../src/core/discovery/meta-tools.js";
import { eventually } from "../support/eventually.js";
import { typecheckScript } from "../support/typecheck.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const FILESYSTEM = `${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;

const clients: Client[] = [];
let dir: string;
let catalog: Catalog;
let declarations: string;

/** Connects over stdio (with every client capability, so every conditional tool is registered) and lists the tools. */
async function listTools(args: string[], expected: number): Promise<Tool[]> {
  const client = new Client({ name: "decls-test", version: "1.0.0" }, { capabilities: { roots: {}, sampling: {}, elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => undefined);
  clients.push(client);
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }));
  // server-everything registers its capability-dependent tools after `initialized`.
  const { tools } = await eventually(() => client.listTools(), (r) => r.tools.length >= expected);
  return tools;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-edge-fs-"));
  const [everything, filesystem] = await Promise.all([listTools([EVERYTHING, "stdio"], 17), listTools([FILESYSTEM, dir], 14)]);
  catalog = buildCatalog(
    [
      { server: "everything", tools: everything.map(toCachedTool) },
      { server: "filesystem", tools: filesystem.map(toCachedTool) },
    ],
    { withResourceTools: true, reserved: META_TOOL_NAMES },
  );
  declarations = codeModeDeclarations(catalog.tools);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("declarations of real servers", () => {
  it("declare every catalog tool, grouped by server, with precise results where an outputSchema exists", () => {
    expect(catalog.tools.length).toBeGreaterThanOrEqual(17 + 14 + 3);
    for (const tool of catalog.tools) expect(declarations).toContain(`${/^[A-Za-z_$][\w$]*$/.test(tool.name) ? tool.name : JSON.stringify(tool.name)}(args`);
    expect(declarations).toContain('// ── server "everything": ');
    expect(declarations).toContain('// ── server "filesystem": ');
    expect(declarations).toMatch(/filesystem_read_text_file\(args: \{[\s\S]*?\}\): Promise<\{\s*content: string;\s*\}>/);
    expect(declarations).toMatch(/"everything_get-structured-content"\(args: \{[\s\S]*?location: "New York" \| "Chicago" \| "Los Angeles";/);
    // The whole execute tool fits the default budget as declarations.
    expect(executeTool(catalog.tools).style).toBe("declarations");
  });

  it("type-check: a multi-tool script over both servers compiles", () => {
    const script = `
      const weather = await tools["everything_get-structured-content"]({ location: "Chicago" });
      const hot: boolean = weather.temperature > 30 && weather.conditions.length > 0;
      await tools["everything_get-sum"]({ a: weather.humidity, b: 1 });
      await tools.everything_echo({ message: String(hot) });
      await tools.filesystem_write_file({ path: "notes.txt", content: "a\\nb" });
      const listing = await tools.filesystem_list_directory({ path: "." });
      const files = listing.content.split("\\n").filter((line) => line.startsWith("[FILE]"));
      const sizes: number[] = [];
      for (const file of files) {
        const { content } = await tools.filesystem_read_text_file({ path: file.slice(7), head: 10 });
        sizes.push(content.split("\\n").length);
      }
      await tools.filesystem_edit_file({ path: "notes.txt", edits: [{ oldText: "a", newText: "b" }], dryRun: true });
      await tools.filesystem_read_multiple_files({ paths: ["notes.txt"] });
      await tools["everything_get-annotated-message"]({ messageType: "success" });
      await tools.read_mcp_resource({ server: "everything", uri: "demo://resource/static/document/architecture.md" });
      const found = await search("read a file");
      return { sizes, found: found.map((f) => f.name), raw: await callTool("everything_echo", { message: "x" }) };
    `;
    const result = typecheckScript(declarations, script);
    expect(result.output).toBe("");
    expect(result.ok).toBe(true);
  });

  it("type-check: wrong calls against the real schemas fail", () => {
    for (const wrong of [
      'await tools["everything_get-sum"]({ a: "1", b: 2 });',
      'await tools["everything_get-structured-content"]({ location: "Paris" });',
      "await tools.filesystem_read_text_file({ path: 42 });",
      'await tools.filesystem_edit_file({ path: "x", edits: [{ oldText: "a" }] });',
      'const w = await tools["everything_get-structured-content"]({ location: "Chicago" }); w.temperature.toUpperCase();',
      'const e = await tools.everything_echo({ message: "x" }); e.toUpperCase();',
    ]) {
      const result = typecheckScript(declarations, wrong);
      expect(result.ok, wrong).toBe(false);
      expect(result.output, wrong).toMatch(/error TS\d+/);
    }
  });
});
