/**
 * `--import-claude`: the stdio servers Claude Code would start in a project, read from its
 * own files with its precedence: local scope (~/.claude.json projects[dir]) over project
 * scope (<dir>/.mcp.json) over user scope (~/.claude.json top level). These are not the
 * bridge's config, so a bad entry or file is a notice, never a failure; every imported
 * server is listed with its source.
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { SERVER_NAME_PATTERN } from "../../src/core/config.js";
import { validationError } from "../../src/core/validation.js";
import { parseClaudeEntry, type BridgeServer, type ConfigNotice, type ServerList } from "./config.js";
import type { Env } from "./expand-env.js";
import { readJsonFile } from "./json-file.js";

export interface ImportClaudeOptions {
  /** The user's home directory (holds .claude.json). */
  home: string;
  /** The project whose .mcp.json and local-scope servers are imported. */
  projectDir: string;
  env?: Env;
}

const ClaudeUserFileSchema = z.looseObject({
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  projects: z.record(z.string(), z.looseObject({ mcpServers: z.record(z.string(), z.unknown()).optional() })).optional(),
});

const ClaudeProjectFileSchema = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()).optional() });

export async function importClaude(options: ImportClaudeOptions): Promise<ServerList> {
  const env = options.env ?? process.env;
  const projectDir = path.resolve(options.projectDir);
  const projectKeys = new Set([projectDir, await realpath(projectDir).catch(() => projectDir)]);
  const userFile = path.join(options.home, ".claude.json");
  const projectFile = path.join(projectDir, ".mcp.json");
  const notices: ConfigNotice[] = [];

  const read = async <T>(file: string, schema: z.ZodType<T>): Promise<T | undefined> => {
    const json = await readJsonFile(file);
    if (!json.ok) {
      if (!json.missing) notices.push({ kind: "invalid", server: "*", source: file, message: json.reason });
      return undefined;
    }
    const parsed = schema.safeParse(json.value);
    if (!parsed.success) {
      notices.push({ kind: "invalid", server: "*", source: file, message: validationError(parsed.error, { what: file }).message });
      return undefined;
    }
    return parsed.data;
  };
  const user = await read(userFile, ClaudeUserFileSchema);
  const project = await read(projectFile, ClaudeProjectFileSchema);
  const local = [...projectKeys].map((key) => user?.projects?.[key]?.mcpServers).find((s) => s !== undefined);

  const scopes: { source: string; entries: Record<string, unknown> | undefined }[] = [
    { source: `${userFile} (local scope, projects["${projectDir}"])`, entries: local },
    { source: `${projectFile} (project scope)`, entries: project?.mcpServers },
    { source: `${userFile} (user scope)`, entries: user?.mcpServers },
  ];
  const servers: BridgeServer[] = [];
  for (const scope of scopes) {
    for (const [name, raw] of Object.entries(scope.entries ?? {})) {
      if (!SERVER_NAME_PATTERN.test(name)) {
        notices.push({ kind: "invalid", server: name, source: scope.source, message: `server name ${JSON.stringify(name)} is not allowed` });
        continue;
      }
      const outcome = parseClaudeEntry(name, raw, scope.source, env);
      if (outcome.kind === "error") {
        notices.push({ kind: "invalid", server: name, source: scope.source, message: outcome.error.message });
      } else if (outcome.kind === "notice") {
        notices.push(outcome.notice);
      } else {
        const winner = servers.find((s) => s.name === name);
        if (winner) {
          notices.push({ kind: "clash", server: name, source: scope.source, message: `server "${name}" from ${scope.source} ignored: ${winner.source} defines it` });
        } else {
          servers.push(outcome.server);
          notices.push({ kind: "imported", server: name, source: scope.source, message: `imported server "${name}" from ${scope.source}` });
        }
      }
    }
  }
  return { servers, notices };
}
