/**
 * Real stdio MCP servers from npm, driven by the SDK Client over ObservingStdioTransport:
 * server-everything, server-filesystem and server-memory. Closing is the host's doing and
 * must never surface as a failure.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChildExitError } from "../../bridge/src/errors.js";
import { inheritedEnv, NODE, packageBin, useChildren } from "./helpers.js";

const children = useChildren();

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((c) => c.text ?? "").join("");
}

function newClient(): Client {
  return new Client({ name: "bridge-test", version: "1.0.0" });
}

describe("server-everything over stdio", () => {
  it("initializes, lists tools, echoes, and closes as a host shutdown", async () => {
    const transport = children.transport(
      { command: NODE, args: [packageBin("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"], env: inheritedEnv() },
      { name: "everything" },
    );
    const errors: Error[] = [];
    const client = newClient();
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    expect(transport.state).toBe("open");
    expect(client.getServerVersion()?.name).toMatch(/everything/);

    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(13);
    expect(tools.map((t) => t.name)).toContain("echo");

    const echoed = await client.callTool({ name: "echo", arguments: { message: "hello bridge" } });
    expect(textOf(echoed)).toBe("Echo: hello bridge");

    await client.close();
    expect(transport.state).toBe("closed");
    expect(transport.exit).toMatchObject({ hostShutdown: true });
    expect(transport.failure).toBeUndefined();
    expect(errors.filter((e) => e instanceof ChildExitError)).toEqual([]);
    expect(transport.exit!.stderrTail).toMatch(/Starting default \(STDIO\) server/);
  });
});

describe("servers with state on disk", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "bridge-servers-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("server-filesystem lists its tools and reads a file in its allowed directory", async () => {
    const file = path.join(dir, "notes.txt");
    await writeFile(file, "line one\nline two\n");
    const transport = children.transport(
      { command: NODE, args: [packageBin("@modelcontextprotocol/server-filesystem/dist/index.js"), dir], env: inheritedEnv() },
      { name: "filesystem" },
    );
    const client = newClient();
    await client.connect(transport);

    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["read_text_file", "list_directory", "write_file"]));

    const read = await client.callTool({ name: "read_text_file", arguments: { path: file } });
    expect(textOf(read)).toBe("line one\nline two\n");

    const outside = await client.callTool({ name: "read_text_file", arguments: { path: "/etc/hostname" } });
    expect(outside.isError).toBe(true);

    await client.close();
    expect(transport.exit?.hostShutdown).toBe(true);
  });

  it("server-memory creates an entity, reads the graph back and persists it to MEMORY_FILE_PATH", async () => {
    const memoryFile = path.join(dir, "memory.jsonl");
    const transport = children.transport(
      { command: NODE, args: [packageBin("@modelcontextprotocol/server-memory/dist/index.js")], env: inheritedEnv({ MEMORY_FILE_PATH: memoryFile }) },
      { name: "memory" },
    );
    const client = newClient();
    await client.connect(transport);

    await client.callTool({
      name: "create_entities",
      arguments: { entities: [{ name: "mcp-edge", entityType: "project", observations: ["runs on Workers"] }] },
    });
    const graph = await client.callTool({ name: "read_graph", arguments: {} });
    const parsed = JSON.parse(textOf(graph)) as { entities: { name: string; entityType: string; observations: string[] }[] };
    expect(parsed.entities).toEqual([expect.objectContaining({ name: "mcp-edge", entityType: "project", observations: ["runs on Workers"] })]);

    await client.close();
    expect(transport.exit?.hostShutdown).toBe(true);
    expect(await readFile(memoryFile, "utf8")).toContain('"mcp-edge"');
  });
});
