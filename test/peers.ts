/**
 * Starts the real MCP peers the tests talk to, on 127.0.0.1, and a small control
 * endpoint so tests running inside workerd can restart one (a server restart in the
 * middle of a session). Used by vitest's globalSetup and by the benchmark.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer, connect } from "node:net";
import { fileURLToPath } from "node:url";
import type { PeerUrls } from "./peer-urls.js";
import { startModelServer } from "./support/model-server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const OAUTH_EXAMPLE = `${root}node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js`;
const FIXTURE = `${root}test/fixtures/fixture-server.mjs`;
const OAUTH_REFRESH = `${root}test/fixtures/oauth-refresh-server.mjs`;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on the port (polling, with a deadline). */
export async function waitForPort(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface PeerSpec {
  args: string[];
  env: Record<string, string>;
  ports: number[];
}

export class Peer {
  child: ChildProcess | undefined;
  constructor(readonly spec: PeerSpec) {}

  async start(): Promise<void> {
    this.child = spawn(process.execPath, this.spec.args, {
      env: { ...process.env, ...this.spec.env },
      stdio: ["ignore", "ignore", process.env.PEER_LOGS ? "inherit" : "ignore"],
    });
    await Promise.all(this.spec.ports.map((p) => waitForPort(p)));
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  }

  /** SIGSTOP: the port still accepts connections, but nothing answers (a hung server). */
  async pause(): Promise<void> {
    this.child?.kill("SIGSTOP");
  }

  async resume(): Promise<void> {
    this.child?.kill("SIGCONT");
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

export interface Peers {
  urls: PeerUrls;
  stop(): Promise<void>;
}

export async function startPeers(): Promise<Peers> {
  const [everything, everythingSse, fixture, oauth, oauthAuth, refused, control, oauthRefresh, faultEverything, faultFixture, oauthSkew] = await Promise.all(Array.from({ length: 11 }, freePort));
  const peers: Record<string, Peer> = {
    everything: new Peer({ args: [EVERYTHING, "streamableHttp"], env: { PORT: String(everything) }, ports: [everything!] }),
    everythingSse: new Peer({ args: [EVERYTHING, "sse"], env: { PORT: String(everythingSse) }, ports: [everythingSse!] }),
    fixture: new Peer({ args: [FIXTURE], env: { PORT: String(fixture) }, ports: [fixture!] }),
    oauth: new Peer({ args: [OAUTH_EXAMPLE, "--oauth"], env: { MCP_PORT: String(oauth), MCP_AUTH_PORT: String(oauthAuth) }, ports: [oauth!, oauthAuth!] }),
    oauthRefresh: new Peer({ args: [OAUTH_REFRESH], env: { PORT: String(oauthRefresh) }, ports: [oauthRefresh!] }),
    // The same server with hour-long tokens: the clock-skew test expires them on the server side only.
    oauthSkew: new Peer({ args: [OAUTH_REFRESH], env: { PORT: String(oauthSkew), TOKEN_TTL_S: "3600" }, ports: [oauthSkew!] }),
    // Copies that only the fault tests kill, pause and restart, so other test files never see it.
    faultEverything: new Peer({ args: [EVERYTHING, "streamableHttp"], env: { PORT: String(faultEverything) }, ports: [faultEverything!] }),
    faultFixture: new Peer({ args: [FIXTURE], env: { PORT: String(faultFixture) }, ports: [faultFixture!] }),
  };
  await Promise.all(Object.values(peers).map((p) => p.start()));

  // POST /restart|stop|start|pause|resume/NAME acts on that peer (same port(s)) and answers once done.
  const controlServer: Server = createServer(async (req, res) => {
    const match = /^\/(restart|stop|start|pause|resume)\/(\w+)$/.exec(req.url ?? "");
    const peer = match ? peers[match[2]!] : undefined;
    if (req.method !== "POST" || !peer) {
      res.writeHead(404).end();
      return;
    }
    try {
      await peer[match![1] as "restart" | "stop" | "start" | "pause" | "resume"]();
      res.writeHead(200).end("done");
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => controlServer.listen(control, "127.0.0.1", resolve));
  // The model behind sampling: behaviour by model id (see test/support/model-server.ts).
  const model = await startModelServer();

  return {
    urls: {
      everything: `http://127.0.0.1:${everything}/mcp`,
      everythingSse: `http://127.0.0.1:${everythingSse}/sse`,
      fixture: `http://127.0.0.1:${fixture}/mcp`,
      oauth: `http://127.0.0.1:${oauth}/mcp`,
      oauthRefresh: `http://127.0.0.1:${oauthRefresh}/mcp`,
      oauthSkew: `http://127.0.0.1:${oauthSkew}/mcp`,
      refused: `http://127.0.0.1:${refused}/mcp`,
      control: `http://127.0.0.1:${control}`,
      faultEverything: `http://127.0.0.1:${faultEverything}/mcp`,
      faultFixture: `http://127.0.0.1:${faultFixture}/mcp`,
      model: model.baseURL,
    },
    async stop() {
      await new Promise<void>((resolve) => controlServer.close(() => resolve()));
      await model.close();
      await Promise.all(Object.values(peers).map((p) => p.stop()));
    },
  };
}
