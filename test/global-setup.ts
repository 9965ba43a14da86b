import type { TestProject } from "vitest/node";
import { startPeers } from "./peers.js";

declare module "vitest" {
  export interface ProvidedContext {
    peers: Record<string, string>;
  }
}

export default async function setup(project: TestProject) {
  const peers = await startPeers();
  project.provide("peers", peers.urls);
  return () => peers.stop();
}
