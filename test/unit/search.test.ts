import { describe, expect, it } from "vitest";
import {
  buildSearchIndex,
  DEFAULT_SEARCH_CONFIG,
  DEFAULT_SEARCH_LIMIT,
  deserializeSearchIndex,
  parseSearchIndex,
  resolveSearchConfig,
  SEARCH_INDEX_FORMAT,
  SEARCH_INDEX_VERSION,
  SearchError,
  searchIndex,
  serializeSearchIndex,
  type SearchDocument,
  type SearchIndex,
} from "../../src/core/search/index.js";
import { fromBase64, toBase64 } from "../../src/core/search/binary.js";

const tool = (server: string, name: string, description: string, properties: Record<string, string> = {}, serverDescription?: string): SearchDocument => ({
  id: `${server}_${name}`,
  server,
  name,
  description,
  ...(serverDescription ? { serverDescription } : {}),
  inputSchema: {
    type: "object",
    properties: Object.fromEntries(Object.entries(properties).map(([key, text]) => [key, { type: "string", description: text }])),
  },
});

/** A small catalog in the shape of real MCP servers. */
const CATALOG: SearchDocument[] = [
  tool("filesystem", "read_file", "Read the complete contents of a file from the file system.", { path: "Path of the file to read" }, "Secure file operations on local directories"),
  tool("filesystem", "write_file", "Create a new file or overwrite an existing file with new content.", { path: "Where to write", content: "Text to write" }, "Secure file operations on local directories"),
  tool("filesystem", "list_directory", "Get a detailed listing of all files and directories in a specified path.", { path: "Directory to list" }, "Secure file operations on local directories"),
  tool("filesystem", "search_files", "Recursively search for files and directories matching a pattern.", { path: "Where to start", pattern: "Glob pattern" }, "Secure file operations on local directories"),
  tool("github", "create_issue", "Create a new issue in a GitHub repository.", { owner: "Repository owner", repo: "Repository name", title: "Issue title", body: "Issue body" }, "GitHub API: repositories, issues and pull requests"),
  tool("github", "list_issues", "List issues in a GitHub repository with filtering options.", { owner: "Repository owner", repo: "Repository name", state: "open or closed" }, "GitHub API: repositories, issues and pull requests"),
  tool("github", "create_pull_request", "Create a new pull request in a GitHub repository.", { owner: "Repository owner", repo: "Repository name", head: "Branch with changes", base: "Branch to merge into" }, "GitHub API: repositories, issues and pull requests"),
  tool("github", "getFileContents", "Get the contents of a file or directory from a GitHub repository.", { owner: "Repository owner", repo: "Repository name", path: "Path to the file" }, "GitHub API: repositories, issues and pull requests"),
  tool("weather", "get_forecast", "Get the weather forecast for a location: temperature, wind and precipitation.", { latitude: "Latitude", longitude: "Longitude" }, "National Weather Service forecasts and alerts"),
  tool("weather", "get_alerts", "Get active weather alerts for a US state.", { state: "Two-letter US state code" }, "National Weather Service forecasts and alerts"),
  tool("slack", "slack_post_message", "Post a new message to a Slack channel.", { channel_id: "The channel to post to", text: "The message text" }, "Slack workspace messaging"),
  tool("slack", "slack_list_channels", "List public channels in the workspace with pagination.", { limit: "Maximum number of channels" }, "Slack workspace messaging"),
  tool("postgres", "query", "Run a read-only SQL query against the database.", { sql: "The SQL query to run" }, "Read-only access to PostgreSQL databases"),
  tool("搜索服务", "网页搜索", "使用必应搜索指定的关键词，并返回搜索结果列表", { query: "搜索关键词" }, "中文必应搜索工具"),
];

const index = buildSearchIndex(CATALOG);
const ids = (query: string, options?: Parameters<typeof searchIndex>[2], on: SearchIndex = index) => searchIndex(on, query, options).map((hit) => hit.id);

/** mulberry32: a tiny seeded PRNG, so shuffles are random but reproducible. */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe("ranking", () => {
  it("finds the tool a task describes", () => {
    expect(ids("read the contents of a local file")[0]).toBe("filesystem_read_file");
    expect(ids("open a pull request on GitHub")[0]).toBe("github_create_pull_request");
    expect(ids("will it rain tomorrow? weather forecast for Paris")[0]).toBe("weather_get_forecast");
    expect(ids("send a message to the #general Slack channel")[0]).toBe("slack_slack_post_message");
    expect(ids("run a SQL query on the database")[0]).toBe("postgres_query");
    expect(ids("what files are in my /root/music folder? list the directory")[0]).toBe("filesystem_list_directory");
  });

  it("matches a tool name however it is written", () => {
    for (const query of ["list_directory", "listDirectory", "ListDirectory", "list directory"]) expect(ids(query)[0]).toBe("filesystem_list_directory");
    expect(ids("getFileContents")[0]).toBe("github_getFileContents");
    expect(ids("get_file_contents")[0]).toBe("github_getFileContents");
  });

  it("uses server names and descriptions", () => {
    expect(ids("On GitHub, show me the open issues")[0]).toBe("github_list_issues");
    expect(ids("National Weather Service alerts for Texas")[0]).toBe("weather_get_alerts");
  });

  it("ranks every step of a task of several steps near the top", () => {
    const top = ids("Find the open issues in the repository, then create a pull request and post a message to Slack", { limit: 6 });
    expect(top).toEqual(expect.arrayContaining(["github_list_issues", "github_create_pull_request", "slack_slack_post_message"]));
  });

  it("weighs quoted values less than the words around them", () => {
    // "weather" in quotes is an argument (a file name), the task is about writing a file.
    expect(ids("write the text 'weather forecast alerts' into a new file")[0]).toBe("filesystem_write_file");
  });

  it("matches a long query word by an indexed prefix of it, weaker than an exact match", () => {
    const crypto = buildSearchIndex([
      tool("coins", "get_crypto_price", "Current price of a crypto asset.", { symbol: "Ticker symbol" }),
      tool("stocks", "get_stock_price", "Current price of a stock.", { symbol: "Ticker symbol" }),
      tool("coins", "cryptocurrency_news", "News about cryptocurrency markets."),
    ]);
    expect(ids("cryptocurrency price", undefined, crypto).slice(0, 2).sort()).toEqual(["coins_cryptocurrency_news", "coins_get_crypto_price"]);
    expect(ids("cryptocurrency", undefined, crypto)).toEqual(["coins_cryptocurrency_news", "coins_get_crypto_price"]); // exact first
    expect(ids("price of a cryptocurrency", { limit: 1 }, buildSearchIndex(CATALOG.concat(tool("coins", "get_crypto_price", "Current price of a crypto asset."))))).toEqual([
      "coins_get_crypto_price",
    ]);
    const off = buildSearchIndex([tool("coins", "get_crypto_price", "Current price of a crypto asset.")], { prefixWeight: 0 });
    expect(ids("cryptocurrency", undefined, off)).toEqual([]);
  });

  it("searches other scripts too", () => {
    expect(ids("必应搜索")[0]).toBe("搜索服务_网页搜索");
    expect(ids("搜索关键词")).toEqual(["搜索服务_网页搜索"]);
  });

  it("returns scores in descending order, all positive", () => {
    const hits = searchIndex(index, "file directory path", { limit: 20 });
    expect(hits.length).toBeGreaterThan(3);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
  });
});

describe("queries that match nothing", () => {
  it("an empty or blank query returns no results", () => {
    expect(searchIndex(index, "")).toEqual([]);
    expect(searchIndex(index, "   \n\t ")).toEqual([]);
  });

  it("a query of stop words or punctuation only returns no results", () => {
    expect(searchIndex(index, "the of and to is it")).toEqual([]);
    expect(searchIndex(index, "?!, … — ;")).toEqual([]);
  });

  it("a query of unknown words returns no results", () => {
    expect(searchIndex(index, "xylophone zebra quasar")).toEqual([]);
  });

  it("an empty catalog returns no results", () => {
    expect(searchIndex(buildSearchIndex([]), "read a file")).toEqual([]);
  });
});

describe("options", () => {
  it("limit defaults to 8 and caps the results", () => {
    expect(DEFAULT_SEARCH_LIMIT).toBe(8);
    expect(ids("file repository issue weather channel message query directory")).toHaveLength(8);
    expect(ids("file repository issue weather channel message query directory", { limit: 3 })).toHaveLength(3);
    expect(ids("file", { limit: 0 })).toEqual([]);
    expect(ids("file", { limit: -2 })).toEqual([]);
    expect(ids("file", { limit: 2.7 })).toHaveLength(2);
  });

  it("a limit above the matches returns every match, and the top of a longer list is the shorter list", () => {
    const all = ids("file", { limit: 1000 });
    expect(all.length).toBeLessThan(CATALOG.length);
    expect(ids("file", { limit: 3 })).toEqual(all.slice(0, 3));
  });

  it("filter keeps only the ids it accepts, and the limit counts after filtering", () => {
    const onlyGithub = (id: string) => id.startsWith("github_");
    const filtered = ids("file contents repository directory", { filter: onlyGithub, limit: 3 });
    expect(filtered).toHaveLength(3);
    expect(filtered.every(onlyGithub)).toBe(true);
    expect(ids("file contents", { filter: () => false })).toEqual([]);
    const unfiltered = ids("file contents repository directory", { limit: 100 });
    expect(ids("file contents repository directory", { filter: onlyGithub, limit: 100 })).toEqual(unfiltered.filter(onlyGithub));
  });
});

describe("determinism", () => {
  const queries = ["read a file", "github issues", "weather", "post to slack", "list", "create"];

  it("the same results across builds and input orders", () => {
    const expected = queries.map((q) => searchIndex(index, q, { limit: 20 }));
    for (const seed of [1, 2, 3]) {
      const shuffled = buildSearchIndex(shuffle(CATALOG, seed));
      expect(queries.map((q) => searchIndex(shuffled, q, { limit: 20 }))).toEqual(expected);
    }
    expect(serializeSearchIndex(buildSearchIndex(shuffle(CATALOG, 9)))).toBe(serializeSearchIndex(index));
  });

  it("ties are broken by id", () => {
    const twins = buildSearchIndex([tool("b", "ping", "Ping a host"), tool("a", "ping", "Ping a host"), tool("c", "ping", "Ping a host")]);
    const hits = searchIndex(twins, "ping");
    expect(hits.map((h) => h.id)).toEqual(["a_ping", "b_ping", "c_ping"]);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
  });

  it("refuses two documents with one id", () => {
    const twice = [CATALOG[0]!, { ...CATALOG[1]!, id: CATALOG[0]!.id }];
    expect(() => buildSearchIndex(twice)).toThrowError(SearchError);
    try {
      buildSearchIndex(twice);
    } catch (error) {
      expect(SearchError.is(error) && error.code).toBe("duplicateId");
    }
  });
});

describe("serialization", () => {
  it("a round trip gives identical results", () => {
    const text = serializeSearchIndex(index);
    const loaded = deserializeSearchIndex(text);
    for (const q of ["read a file", "github issues then post to slack", "必应搜索", "'quoted' weather", ""]) {
      expect(searchIndex(loaded, q, { limit: 50 })).toEqual(searchIndex(index, q, { limit: 50 }));
    }
    expect(serializeSearchIndex(loaded)).toBe(text);
  });

  it("keeps a non-default configuration", () => {
    const custom = buildSearchIndex(CATALOG, { k1: 2, fields: { description: { weight: 3 } }, clauseWeight: 0 });
    const loaded = deserializeSearchIndex(serializeSearchIndex(custom));
    expect(searchIndex(loaded, "file issue", { limit: 20 })).toEqual(searchIndex(custom, "file issue", { limit: 20 }));
    expect(searchIndex(loaded, "file issue", { limit: 20 })).not.toEqual(searchIndex(index, "file issue", { limit: 20 }));
  });

  it("names its format and version", () => {
    const stored = JSON.parse(serializeSearchIndex(index)) as { format: string; version: number };
    expect(stored.format).toBe(SEARCH_INDEX_FORMAT);
    expect(stored.version).toBe(SEARCH_INDEX_VERSION);
  });

  it("bad or old input is refused with a clear error", () => {
    const good = JSON.parse(serializeSearchIndex(index)) as Record<string, unknown>;
    const data = good.data as string;
    const cases: [string, RegExp][] = [
      ["not json", /not JSON/],
      ["null", /not an object/],
      [JSON.stringify({ ...good, format: "other" }), /format/],
      [JSON.stringify({ ...good, version: SEARCH_INDEX_VERSION - 1 }), /version .* rebuild/],
      [JSON.stringify({ ...good, version: undefined }), /version/],
      [JSON.stringify({ ...good, ids: "x" }), /ids/],
      [JSON.stringify({ ...good, ids: [...(good.ids as string[])].reverse() }), /ascending/],
      [JSON.stringify({ ...good, terms: ["a", "a"] }), /terms/],
      [JSON.stringify({ ...good, config: { ...(good.config as object), k1: -1 } }), /k1/],
      [JSON.stringify({ ...good, data: "%%%%" }), /not base64/],
      [JSON.stringify({ ...good, data: data.slice(0, 40) }), /ends early/],
      [JSON.stringify({ ...good, data: toBase64(Uint8Array.from([...fromBase64(data), 0])) }), /left over/],
      [JSON.stringify({ ...good, servers: [] }), /server that does not exist/],
      [JSON.stringify({ ...good, terms: [...(good.terms as string[]), "extra"] }), /ends early|impossible length/],
    ];
    for (const [text, message] of cases) {
      expect(() => deserializeSearchIndex(text), text.slice(0, 60)).toThrowError(message);
      const result = parseSearchIndex(text);
      expect(result.success).toBe(false);
      if (!result.success) {
        expect(result.error.code).toBe("invalidIndex");
        expect(result.error.message).toMatch(/^Cannot read the search index: /);
      }
    }
  });

  it("survives random corruption of its data without crashing (refused or still an index)", () => {
    const good = JSON.parse(serializeSearchIndex(index)) as Record<string, unknown>;
    const data = good.data as string;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (let i = 0; i < 200; i++) {
      const at = (i * 7919) % (data.length - 4);
      const corrupted = data.slice(0, at) + alphabet[(i * 31) % 64] + data.slice(at + 1);
      const result = parseSearchIndex(JSON.stringify({ ...good, data: corrupted }));
      if (result.success) expect(Array.isArray(searchIndex(result.value, "file"))).toBe(true);
      else expect(result.error.code).toBe("invalidIndex");
    }
  });

  it("refuses a value that is not an index", () => {
    expect(() => searchIndex({} as SearchIndex, "x")).toThrowError(/Not a search index/);
    expect(() => serializeSearchIndex(null as unknown as SearchIndex)).toThrowError(SearchError);
  });
});

describe("configuration", () => {
  it("the default is frozen and complete", () => {
    expect(Object.isFrozen(DEFAULT_SEARCH_CONFIG)).toBe(true);
    expect(Object.isFrozen(DEFAULT_SEARCH_CONFIG.fields.description)).toBe(true);
    expect(resolveSearchConfig()).toEqual(DEFAULT_SEARCH_CONFIG);
  });

  it("merges a partial override field by field", () => {
    const config = resolveSearchConfig({ fields: { description: { weight: 2 } }, tokenizer: { stemmer: "light" } });
    expect(config.fields.description).toEqual({ weight: 2, b: DEFAULT_SEARCH_CONFIG.fields.description.b });
    expect(config.fields.nameWords).toEqual(DEFAULT_SEARCH_CONFIG.fields.nameWords);
    expect(config.tokenizer).toEqual({ ...DEFAULT_SEARCH_CONFIG.tokenizer, stemmer: "light" });
  });

  it("refuses values out of range", () => {
    expect(() => resolveSearchConfig({ k1: Number.NaN })).toThrowError(/k1/);
    expect(() => resolveSearchConfig({ fields: { server: { b: 2 } } })).toThrowError(/fields.server.b/);
    expect(() => resolveSearchConfig({ tokenizer: { stemmer: "snowball" as "light" } })).toThrowError(/stemmer/);
    expect(() => buildSearchIndex(CATALOG, { serverPooling: -1 })).toThrowError(/serverPooling/);
  });
});
