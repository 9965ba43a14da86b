/**
 * Reading a JSON file where "missing" is an expected answer, not an exception:
 * config loading fails on it, Claude import simply finds nothing.
 */
import { readFile } from "node:fs/promises";
import { messageOf } from "../../src/core/errors.js";

export type JsonFile = { ok: true; value: unknown } | { ok: false; missing: boolean; reason: string };

export async function readJsonFile(file: string): Promise<JsonFile> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { ok: false, missing, reason: missing ? `${file} does not exist` : `cannot read ${file}: ${messageOf(error)}` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, missing: false, reason: `${file} is not valid JSON: ${messageOf(error)}` };
  }
}
