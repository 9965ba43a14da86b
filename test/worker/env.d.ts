// Types for tests that run inside workerd: the Worker's bindings, its exports, and the
// peer URLs that globalSetup provides.
import type { Env as WorkerEnv } from "../../src/env.js";
import "../peer-urls.js";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
    interface GlobalProps {
      mainModule: typeof import("../../src/index.js");
      durableNamespaces: "SessionObject";
    }
  }
}

