/**
 * The web console in a real browser: Debian's Chromium driven by playwright-core against
 * the built Worker on workerd (with its static assets), a real server-everything over
 * Streamable HTTP and, for approvals, a scripted OpenAI-compatible model. The page is
 * driven the way a person uses it, by labels and roles, so the test also proves that
 * every control it touches is labelled.
 */
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freePort, Peer } from "../peers.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { buildWorker, startGateway, type Gateway } from "./gateway.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const OAUTH_EXAMPLE = `${root}node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js`;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOTS = `${root}test-results`;

let gateway: Gateway;
let everything: Peer;
let everythingUrl: string;
let oauth: Peer;
let oauthUrl: string;
let llm: ScriptedLlm;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: scripts/ensure-chromium.sh (npm pretest) installs Debian's chromium`);
  const [port, oauthPort, oauthAuthPort] = await Promise.all([freePort(), freePort(), freePort()]);
  everything = new Peer({ args: [EVERYTHING, "streamableHttp"], env: { PORT: String(port) }, ports: [port] });
  everythingUrl = `http://127.0.0.1:${port}/mcp`;
  // The MCP SDK's example server behind OAuth: a real 401 with protected-resource metadata.
  oauth = new Peer({ args: [OAUTH_EXAMPLE, "--oauth"], env: { MCP_PORT: String(oauthPort), MCP_AUTH_PORT: String(oauthAuthPort) }, ports: [oauthPort, oauthAuthPort] });
  // The SDK example names its resource with "localhost"; the MCP auth spec makes us check it.
  oauthUrl = `http://localhost:${oauthPort}/mcp`;
  const [script] = await Promise.all([buildWorker("dist-e2e-console"), everything.start(), oauth.start()]);
  [gateway, llm, browser] = await Promise.all([
    startGateway(script, {}),
    startScriptedLlm(),
    chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] }),
  ]);
  mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await Promise.all([browser?.close(), gateway?.stop(), llm?.close(), everything?.stop(), oauth?.stop()]);
});

const pageErrors: string[] = [];

beforeEach(async () => {
  pageErrors.length = 0;
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    // Failed requests are judged by their URL below (the console text does not name it).
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) pageErrors.push(message.text());
  });
  page.on("response", (response) => {
    // Until approvals are merged, the page asks for them and is told the route is missing (handled).
    if (response.status() >= 400 && !response.url().endsWith("/approvals")) pageErrors.push(`${response.status()} ${response.url()}`);
  });
});

afterEach(async () => {
  await page?.close();
});

/**
 * Waits for `target`; if the page shows an error in its alert region first, fails with
 * that text, so a failure says what the gateway answered rather than "timed out".
 */
async function expectVisible(target: Locator, timeout = 20_000): Promise<void> {
  const alert = page.locator("#problem");
  const shown = await Promise.race([
    target.first().waitFor({ state: "visible", timeout }).then(() => "ok" as const),
    page.waitForFunction(() => (document.getElementById("problem")?.textContent ?? "") !== "", undefined, { timeout }).then(() => "alert" as const),
  ]);
  if (shown === "alert" && !(await target.first().isVisible())) throw new Error(`the console shows an error: ${await alert.textContent()}`);
}

/** Fills the session body editor and creates the session. */
async function createSession(body: unknown): Promise<string> {
  await page.goto(gateway.url);
  await page.getByLabel(/New session/).fill(JSON.stringify(body, null, 2));
  await page.getByRole("button", { name: "Create session" }).click();
  await expectVisible(page.locator("#session-view"));
  const id = (await page.locator("#session-id").textContent()) ?? "";
  expect(id).toMatch(/^ses_/);
  return id;
}

const serverRow = (name: string) => page.getByRole("row").filter({ has: page.getByRole("rowheader", { name }) });
const eventLog = () => page.getByRole("log");

describe("the console page", () => {
  it("is served at / with a strict CSP and loads its script and stylesheet", async () => {
    const response = await page.goto(gateway.url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
    await expect(page.title()).resolves.toBe("mcp-edge console");
    // The module ran: it prefilled the session body with an example.
    expect(JSON.parse(await page.getByLabel(/New session/).inputValue())).toHaveProperty("servers");
    expect(pageErrors).toEqual([]);
  });

  it("creates a session against server-everything, calls echo through the form and shows the live events", async () => {
    const id = await createSession({ servers: { everything: { type: "remote", url: everythingUrl } } });

    await expectVisible(serverRow("everything").getByText("connected"));
    await expectVisible(page.locator("#stream-state").getByText("live"));

    // Search the catalog and open the tool.
    await page.getByLabel("Search tools").fill("echo a message");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("button", { name: /everything_echo/ }).click();
    await expectVisible(page.getByRole("heading", { name: /Tool everything_echo/ }));
    expect(await page.locator("#tool-schema").textContent()).toContain('"message"');

    // The form was generated from the input schema: a labelled text input for `message`.
    await page.getByLabel(/^message/).fill("hello from the browser");
    await page.getByRole("button", { name: "Call tool" }).click();
    await expectVisible(page.locator("#result").getByText("Echo: hello from the browser"));

    // The event log (an aria live region) showed the call start and finish.
    await expectVisible(eventLog().getByText("tool.finished"));
    const log = (await eventLog().textContent()) ?? "";
    expect(log).toContain("tool.started");
    expect(log).toMatch(/tool\.finished\s*everything_echo in \d+ ms/);
    expect(log).toContain("server.status");

    // An image attachment renders as an <img> from its data URL.
    await page.getByLabel("Search tools").fill("tiny image");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("button", { name: /everything_get-tiny-image/ }).click();
    await page.getByRole("button", { name: "Call tool" }).click();
    const image = page.locator("#result img");
    await expectVisible(image);
    expect(await image.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    expect(await image.getAttribute("alt")).toMatch(/Attachment 1 \(image\/png\)/);

    // Back to echo for the screenshot, then disconnect and connect again from the table.
    await page.getByLabel("Search tools").fill("echo");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("button", { name: /everything_echo/ }).click();
    await page.getByLabel(/^message/).fill("hello from the browser");
    await page.getByRole("button", { name: "Call tool" }).click();
    await expectVisible(page.locator("#result").getByText("Echo: hello from the browser"));
    await page.screenshot({ path: `${SCREENSHOTS}/console.png`, fullPage: true });

    await serverRow("everything").getByRole("button", { name: "Disconnect" }).click();
    await expectVisible(serverRow("everything").getByText("disabled"));
    await serverRow("everything").getByRole("button", { name: "Connect" }).click();
    await expectVisible(serverRow("everything").getByText("connected"));

    // The session id is remembered in localStorage, and only the id and server names.
    const stored = await page.evaluate(() => localStorage.getItem("mcp-edge-console:sessions"));
    expect(JSON.parse(stored ?? "[]")).toEqual([{ id, servers: ["everything"] }]);

    // Reloading reopens the session from the address; deleting it forgets it.
    await page.reload();
    await expectVisible(serverRow("everything").getByText("connected"));
    await page.getByRole("button", { name: "Delete session" }).click();
    await expectVisible(page.getByText(`Session ${id} deleted.`));
    expect(await page.evaluate(() => localStorage.getItem("mcp-edge-console:sessions"))).toBe("[]");
    expect(pageErrors).toEqual([]);
  });

  it("shows the gateway's typed error for a bad session body", async () => {
    await page.goto(gateway.url);
    await page.getByLabel(/New session/).fill(JSON.stringify({ servers: { x: { type: "remote", url: everythingUrl, nope: 1 } } }));
    await page.getByRole("button", { name: "Create session" }).click();
    await page.getByRole("alert").getByText(/unknownKeys|invalidConfig/).waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("nope");

    await page.getByLabel(/New session/).fill("{not json");
    await page.getByRole("button", { name: "Create session" }).click();
    await page.getByRole("alert").getByText(/not valid JSON/).waitFor();
  });

  it("offers Sign in for a server that needs it, and never shows a configured secret", async () => {
    const secret = "sk-console-test-0123456789abcdef";
    await createSession({
      servers: {
        everything: { type: "remote", url: everythingUrl, headers: { "X-Api-Key": secret } },
        secured: { type: "remote", url: oauthUrl },
      },
    });
    await expectVisible(serverRow("secured").getByText("needs auth"));
    await expectVisible(serverRow("everything").getByText("connected"));

    // The secret is only in the editor the user typed it into: not in the rest of the page, not in storage.
    const shown = await page.evaluate(() => {
      const copy = document.body.cloneNode(true) as HTMLElement;
      copy.querySelector("#session-body")?.remove();
      return copy.textContent ?? "";
    });
    expect(shown).not.toContain(secret);
    expect(JSON.stringify(await page.evaluate(() => ({ ...localStorage })))).not.toContain(secret);

    // Sign in: the gateway's POST …/auth opens the authorization URL in a new tab, or, on a
    // gateway without that route, the page says so.
    const outcome = await Promise.race([
      page.waitForEvent("popup").then((popup) => `popup ${popup.url()}`, () => "no popup"),
      page.getByRole("alert").getByText(/Sign-in is not available/).waitFor().then(() => "unavailable", () => "no message"),
      serverRow("secured").getByRole("button", { name: "Sign in" }).click().then(() => new Promise<never>(() => {})),
    ]);
    expect(outcome === "unavailable" || outcome.startsWith("popup http")).toBe(true);
  });

  it("approves a sampling request in the page and shows the model's text in the tool result", async () => {
    llm.script([() => ({ text: "A haiku from the scripted model" })]);
    await createSession({
      servers: { everything: { type: "remote", url: everythingUrl, sampling: "ask" } },
      providers: { scripted: { kind: "openai-compatible", baseURL: llm.baseURL, models: { "scripted-model": {} } } },
      model: "scripted/scripted-model",
    });
    await expectVisible(serverRow("everything").getByText("connected"));

    await page.getByLabel("Search tools").fill("trigger sampling request");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("button", { name: /everything_trigger-sampling-request/ }).click();
    await page.getByLabel(/^prompt/).fill("Write a haiku");
    await page.getByRole("button", { name: "Call tool" }).click();

    // The call waits for the approval, which the page shows from the event stream.
    const approval = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: /sampling request from everything/i }) });
    await expectVisible(approval);
    expect(await approval.textContent()).toContain("Write a haiku");
    await approval.getByRole("button", { name: "Allow once" }).click();

    await expectVisible(page.locator("#result").getByText(/A haiku from the scripted model/), 30_000);
    expect(await page.locator("#approvals").getByRole("listitem").count()).toBe(0);
    const log = (await eventLog().textContent()) ?? "";
    expect(log).toContain("approval.requested");
    expect(log).toContain("approval.resolved");
    expect(llm.requests).toHaveLength(1);
    await page.screenshot({ path: `${SCREENSHOTS}/console-approval.png`, fullPage: true });
  });
});
