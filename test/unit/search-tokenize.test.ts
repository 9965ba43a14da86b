import { describe, expect, it } from "vitest";
import { stemmerFor } from "../../src/core/search/stem.js";
import { createTokenizer, splitParts } from "../../src/core/search/tokenize.js";
import type { TokenizerConfig } from "../../src/core/search/types.js";
import { DEFAULT_SEARCH_CONFIG } from "../../src/core/search/config.js";

const tuned = createTokenizer(DEFAULT_SEARCH_CONFIG.tokenizer);
const make = (override: Partial<TokenizerConfig>) => createTokenizer({ ...DEFAULT_SEARCH_CONFIG.tokenizer, ...override });

describe("splitParts", () => {
  it("splits snake_case, kebab-case, camelCase, acronyms and digits", () => {
    expect(splitParts("list_directory")).toEqual(["list", "directory"]);
    expect(splitParts("get-library-docs")).toEqual(["get", "library", "docs"]);
    expect(splitParts("getStoryWithComments")).toEqual(["get", "story", "with", "comments"]);
    expect(splitParts("HTMLParser")).toEqual(["html", "parser"]);
    expect(splitParts("parseURLs")).toEqual(["parse", "urls"]);
    expect(splitParts("mind2web")).toEqual(["mind", "2", "web"]);
    expect(splitParts("CNNs")).toEqual(["cnns"]);
    expect(splitParts("ERC1155")).toEqual(["erc", "1155"]);
  });

  it("turns unspaced scripts into character pairs and keeps other scripts whole", () => {
    expect(splitParts("必应搜索")).toEqual(["必应", "应搜", "搜索"]);
    expect(splitParts("搜")).toEqual(["搜"]);
    expect(splitParts("Café")).toEqual(["café"]);
    expect(splitParts("поиск")).toEqual(["поиск"]);
  });
});

describe("tokenizer", () => {
  it("lowercases, drops stop words and one-letter parts, and keeps compounds of split words", () => {
    expect(tuned.terms("Get the README of a GitHub repository")).toEqual(["get", "readme", "git", "hub", "github", "repository"]);
    expect(tuned.terms("call list_directory on /root/music")).toEqual(["call", "list", "directory", "listdirectory", "root", "music"]);
  });

  it("reads a tool name written any way as the same identifier term", () => {
    const forms = ["list_directory", "listDirectory", "ListDirectory", "list-directory", "LIST_DIRECTORY"];
    for (const form of forms) expect(tuned.identifier(form)).toEqual(["listdirectory"]);
    expect(tuned.identifier("搜索_tool")).toEqual(["搜索tool"]);
  });

  it("can leave identifiers whole (the plain-BM25 baseline)", () => {
    const plain = make({ splitIdentifiers: false, keepCompounds: false, stopWords: false, minTermLength: 1 });
    expect(plain.terms("rename_app for a Heroku-app")).toEqual(["rename_app", "for", "a", "heroku", "app"]);
    expect(plain.identifier("rename_app")).toEqual(["rename_app"]);
  });

  it("returns nothing for empty text, punctuation or stop words only", () => {
    expect(tuned.terms("")).toEqual([]);
    expect(tuned.terms("  ?!, …  ")).toEqual([]);
    expect(tuned.terms("what is the of and to")).toEqual([]);
  });

  it("normalizes unicode (NFKC) before splitting, and finds words in any script", () => {
    expect(tuned.terms("ＧｅｔＵｓｅｒ")).toEqual(["get", "user", "getuser"]); // full-width letters
    expect(tuned.terms("Café résumé")).toEqual(["café", "résumé"]);
    expect(tuned.terms("Cafe\u0301")).toEqual(["café"]); // combining accent composed
    expect(tuned.terms("使用必应搜索")).toEqual(["使用", "用必", "必应", "应搜", "搜索"]);
    expect(tuned.terms("emoji 🚀 rocket")).toEqual(["emoji", "rocket"]);
  });

  it("finds exactly the same words in ASCII text by hand as with the Unicode pattern", () => {
    const text = "a_b-c __x-- 9lives foo--bar_ baz_-qux -lead trail- mid_dle";
    const ascii: string[] = [];
    tuned.forEachWord(text, (w) => ascii.push(w));
    const unicode: string[] = [];
    tuned.forEachWord(`${text} é`, (w) => unicode.push(w));
    expect(unicode).toEqual([...ascii, "é"]);
    expect(ascii).toEqual(["a_b-c", "x", "9lives", "foo--bar", "baz_-qux", "lead", "trail", "mid_dle"]);
  });

  it("is deterministic and pure (same input, same output, across instances)", () => {
    const text = "Fetch the latest BTC/USDT price from Binance's getTickerPrice API";
    expect(make({}).terms(text)).toEqual(tuned.terms(text));
    expect(tuned.terms(text)).toEqual(tuned.terms(text));
  });
});

describe("stemmers", () => {
  it("plural folds plurals only", () => {
    const stem = stemmerFor("plural");
    expect(["files", "queries", "boxes", "status", "analysis", "class"].map(stem)).toEqual(["file", "query", "box", "status", "analysis", "class"]);
  });

  it("light joins the forms of a verb and its -ion noun", () => {
    const stem = stemmerFor("light");
    const forms = ["create", "creates", "created", "creating", "creation"].map(stem);
    expect(new Set(forms).size).toBe(1);
    expect(stem("running")).toBe(stem("run"));
    expect(stem("charging")).toBe(stem("charge"));
    expect(stem("v2")).toBe("v2");
    expect(stem("été")).toBe("été");
  });

  it("porter matches the published examples", () => {
    const stem = stemmerFor("porter");
    const cases: Record<string, string> = {
      caresses: "caress", ponies: "poni", cats: "cat", feed: "feed", agreed: "agre", plastered: "plaster",
      motoring: "motor", sing: "sing", conflated: "conflat", hopping: "hop", filing: "file", happy: "happi",
      relational: "relat", conditional: "condit", generalization: "gener", electrical: "electr", adjustment: "adjust",
      controll: "control", roll: "roll", probate: "probat", rate: "rate",
    };
    for (const [word, expected] of Object.entries(cases)) expect(stem(word), word).toBe(expected);
  });

  it("none changes nothing", () => {
    expect(stemmerFor("none")("searching")).toBe("searching");
  });
});
