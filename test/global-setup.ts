import type { TestProject } from "vitest/node";
import type {} from "./peer-urls.js";
import { startPeers } from "./peers.js";

export default async function setup(project: TestProject) {
  const peers = await startPeers();
  project.provide("peers", peers.urls);
  return () => peers.stop();
}
