import { describe, expect, it } from "vitest";
import { normalizeToolResult, type RawToolResult } from "../../src/core/normalize.js";

const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAABQAAAAUCAYAAACNiR0NAAAKsGlDQ1BJQ0MgUHJvZmlsZQAASImVlwdUU+kSgOfe9JDQEiIgJfQmSCeAlBBaAAXpYCMkAUKJMRBU7MriClZURLCs6KqIgo0idizYFsWC3QVZBNR1sWDDlXeBQ9jdd9575805c+a7c+efmf+e/z9nLgCdKZDJMlF1gCxpjjwyyI8dn5DIJvUABRiY0kBdIMyWcSMiwgCTUft3+dgGyJC9YzuU69/f/1fREImzhQBIBMbJomxhFsbHMe0TyuQ5ALg9mN9kbo5siK9gzJRjDWL8ZIhTR7hviJOHGY8fjomO5GGsDUCmCQTyVACaKeZn5wpTsTw0f4ztpSKJFGPsGbyzsmaLMMbqgiUWI8N4KD8n+S95Uv+WM1mZUyBIVfLIXoaF7C/JlmUK5v+fn+N/S1amYrSGOaa0NHlwJGaxvpAHGbNDlSxNnhI+yhLRcPwwpymCY0ZZmM1LHGWRwD9UuTZzStgop0gC+co8OfzoURZnB0SNsnx2pLJWipzHHWWBfKyuIiNG6U8T85X589Ki40Y5VxI7ZZSzM6JCx2J4Sr9cEansXywN8hurG6jce1b2X/Yr4SvX5qRFByv3LhjrXyzljuXMjlf2JhL7B4zFxCjjZTl+ylqyzAhlvDgzSOnPzo1Srs3BDuTY2gjlN0wXhESMMoRBELAhBjIhB+QggECQgBTEOeJ5Q2cUeLNl8+WS1LQcNhe7ZWI2Xyq0m8B2tHd0Bhi6syNH4j1r+C4irGtjvhWVAF4nBgcHT475Qm4BHEkCoNaO+SxnAKh3A1w5JVTIc0d8Q9cJCEAFNWCCDhiACViCLTiCK3iCLwRACIRDNCTATBBCGmRhnc+FhbAMCqAI1sNmKIOdsBv2wyE4CvVwCs7DZbgOt+AePIZ26IJX0AcfYQBBEBJCRxiIDmKImCE2iCPCQbyRACQMiUQSkCQkFZEiCmQhsgIpQoqRMmQXUokcQU4g55GrSCvyEOlAepF3yFcUh9JQJqqPmqMTUQ7KRUPRaHQGmorOQfPQfHQtWopWoAfROvQ8eh29h7ajr9B+HOBUcCycEc4Wx8HxcOG4RFwKTo5bjCvEleAqcNW4Rlwz7g6uHfca9wVPxDPwbLwt3hMfjI/BC/Fz8Ivxq/Fl+P34OvxF/B18B74P/51AJ+gRbAgeBD4hnpBKmEsoIJQQ9hJqCZcI9whdhI9EIpFFtCC6EYOJCcR04gLiauJ2Yg3xHLGV2EnsJ5FIOiQbkhcpnCQg5ZAKSFtJB0lnSbdJXaTPZBWyIdmRHEhOJEvJy8kl5APkM+Tb5G7yAEWdYkbxoIRTRJT5lHWUPZRGyk1KF2WAqkG1oHpRo6np1GXUUmo19RL1CfW9ioqKsYq7ylQVicpSlVKVwypXVDpUvtA0adY0Hm06TUFbS9tHO0d7SHtPp9PN6b70RHoOfS29kn6B/oz+WZWhaqfKVxWpLlEtV61Tva36Ro2iZqbGVZuplqdWonZM7abaa3WKurk6T12gvli9XP2E+n31fg2GhoNGuEaWxmqNAxpXNXo0SZrmmgGaIs18zd2aFzQ7GTiGCYPHEDJWMPYwLjG6mESmBZPPTGcWMQ8xW5h9WppazlqxWvO0yrVOa7WzcCxzFp+VyVrHOspqY30dpz+OO048btW46nG3x33SHq/tqy3WLtSu0b6n/VWHrROgk6GzQade56kuXtdad6ruXN0dupd0X49njvccLxxfOP7o+Ed6qJ61XqTeAr3dejf0+vUN9IP0Zfpb9S/ovzZgGfgapBtsMjhj0GvIMPQ2lBhuMjxr+JKtxeayM9ml7IvsPiM9o2AjhdEuoxajAWML4xjj5cY1xk9NqCYckxSTTSZNJn2mhqaTTReaVpk+MqOYcczSzLaYNZt9MrcwjzNfaV5v3mOhbcG3yLOosnhiSbf0sZxjWWF514poxbHKsNpudcsatXaxTrMut75pg9q42khsttu0TiBMcJ8gnVAx4b4tzZZrm2tbZdthx7ILs1tuV2/3ZqLpxMSJGyY2T/xu72Kfab/H/rGDpkOIw3KHRod3jtaOQsdyx7tOdKdApyVODU5vnW2cxc47nB+4MFwmu6x0aXL509XNVe5a7drrZuqW5LbN7T6HyYngrOZccSe4+7kvcT/l/sXD1SPH46jHH562nhmeBzx7JllMEk/aM6nTy9hL4LXLq92b7Z3k/ZN3u4+Rj8Cnwue5r4mvyHevbzfXipvOPch942fvJ/er9fvE8+At4p3zx/kH+Rf6twRoBsQElAU8CzQOTA2sCuwLcglaEHQumBAcGrwh+D5fny/kV/L7QtxCFoVcDKWFRoWWhT4Psw6ThzVORieHTN44+ckUsynSKfXhEM4P3xj+NMIiYk7EyanEqRFTy6e+iHSIXBjZHMWImhV1IOpjtF/0uujHMZYxipimWLXY6bGVsZ/i/OOK49rjJ8Yvir+eoJsgSWhIJCXGJu5N7J8WMG3ztK7pLtMLprfNsJgxb8bVmbozM2eenqU2SzDrWBIhKS7pQNI3QbigQtCfzE/eltwn5Am3CF+JfEWbRL1iL3GxuDvFK6U4pSfVK3Vjam+aT1pJ2msJT1ImeZsenL4z/VNGeMa+jMHMuMyaLHJWUtYJqaY0Q3pxtsHsebNbZTayAln7HI85m+f0yUPle7OR7BnZDTlMbDi6obBU/KDoyPXOLc/9PDd27rF5GvOk827Mt56/an53XmDezwvwC4QLmhYaLVy2sGMRd9Guxcji5MVNS0yW5C/pWhq0dP8y6rKMZb8st19evPzDirgVjfn6+UvzO38I+qGqQLVAXnB/pefKnT/if5T82LLKadXWVd8LRYXXiuyLSoq+rRauvrbGYU3pmsG1KWtb1rmu27GeuF66vm2Dz4b9xRrFecWdGydvrNvE3lS46cPmWZuvljiX7NxC3aLY0l4aVtqw1XTr+q3fytLK7pX7ldds09u2atun7aLtt3f47qjeqb+zaOfXnyQ/PdgVtKuuwryiZDdxd+7uF3ti9zT/zPm5cq/u3qK9f+6T7mvfH7n/YqVbZeUBvQPrqtAqRVXvwekHbx3yP9RQbVu9q4ZVU3QYDisOvzySdKTtaOjRpmOcY9XHzY5vq2XUFtYhdfPr+urT6tsbEhpaT4ScaGr0bKw9aXdy3ymjU+WntU6vO0M9k39m8Gze2f5zsnOvz6ee72ya1fT4QvyFuxenXmy5FHrpyuXAyxeauc1nr3hdOXXV4+qJa5xr9dddr9fdcLlR+4vLL7Utri11N91uNtzyv9XYOqn1zG2f2+fv+N+5fJd/9/q9Kfda22LaHtyffr/9gehBz8PMh28f5T4aeLz0CeFJ4VP1pyXP9J5V/Gr1a027a/vpDv+OG8+jnj/uFHa++i37t29d+S/oL0q6Dbsrexx7TvUG9t56Oe1l1yvZq4HXBb9r/L7tjeWb43/4/nGjL76v66387eC71e913u/74PyhqT+i/9nHrI8Dnwo/63ze/4Xzpflr3NfugbnfSN9K/7T6s/F76Pcng1mDgzKBXDA8CuAwRVNSAN7tA6AnADCwGYI6bWSmHhZk5D9gmOA/8cjcPSyuANWYGRqNeOcADmNqvhRAzRdgaCyK9gXUyUmpo/Pv8Kw+JAbYv8K0HECi2x6tebQU/iEjc/xf+v6nBWXWv9l/AV0EC6JTIblRAAAAeGVYSWZNTQAqAAAACAAFARIAAwAAAAEAAQAAARoABQAAAAEAAABKARsABQAAAAEAAABSASgAAwAAAAEAAgAAh2kABAAAAAEAAABaAAAAAAAAAJAAAAABAAAAkAAAAAEAAqACAAQAAAABAAAAFKADAAQAAAABAAAAFAAAAAAXNii1AAAACXBIWXMAABYlAAAWJQFJUiTwAAAB82lUWHRYTUw6Y29tLmFkb2JlLnhtcAAAAAAAPHg6eG1wbWV0YSB4bWxuczp4PSJhZG9iZTpuczptZXRhLyIgeDp4bXB0az0iWE1QIENvcmUgNi4wLjAiPgogICA8cmRmOlJERiB4bWxuczpyZGY9Imh0dHA6Ly93d3cudzMub3JnLzE5OTkvMDIvMjItcmRmLXN5bnRheC1ucyMiPgogICAgICA8cmRmOkRlc2NyaXB0aW9uIHJkZjphYm91dD0iIgogICAgICAgICAgICB4bWxuczp0aWZmPSJodHRwOi8vbnMuYWRvYmUuY29tL3RpZmYvMS4wLyI+CiAgICAgICAgIDx0aWZmOllSZXNvbHV0aW9uPjE0NDwvdGlmZjpZUmVzb2x1dGlvbj4KICAgICAgICAgPHRpZmY6T3JpZW50YXRpb24+MTwvdGlmZjpPcmllbnRhdGlvbj4KICAgICAgICAgPHRpZmY6WFJlc29sdXRpb24+MTQ0PC90aWZmOlhSZXNvbHV0aW9uPgogICAgICAgICA8dGlmZjpSZXNvbHV0aW9uVW5pdD4yPC90aWZmOlJlc29sdXRpb25Vbml0PgogICAgICA8L3JkZjpEZXNjcmlwdGlvbj4KICAgPC9yZGY6UkRGPgo8L3g6eG1wbWV0YT4KReh49gAAAjRJREFUOBGFlD2vMUEUx2clvoNCcW8hCqFAo1dKhEQpvsF9KrWEBh/ALbQ0KkInBI3SWyGPCCJEQliXgsTLefaca/bBWjvJzs6cOf/fnDkzOQJIjWm06/XKBEGgD8c6nU5VIWgBtQDPZPWtJE8O63a7LBgMMo/Hw0ql0jPjcY4RvmqXy4XMjUYDUwLtdhtmsxnYbDbI5/O0djqdFFKmsEiGZ9jP9gem0yn0ej2Yz+fg9XpfycimAD7DttstQTDKfr8Po9GIIg6Hw1Cr1RTgB+A72GAwgMPhQLBMJgNSXsFqtUI2myUo18pA6QJogefsPrLBX4QdCVatViklw+EQRFGEj88P2O12pEUGATmsXq+TaLPZ0AXgMRF2vMEqlQoJTSYTpNNpApvNZliv1/+BHDaZTAi2Wq1A3Ig0xmMej7+RcZjdbodUKkWAaDQK+GHjHPnImB88JrZIJAKFQgH2+z2BOczhcMiwRCIBgUAA+NN5BP6mj2DYff35gk6nA61WCzBn2JxO5wPM7/fLz4vD0E+OECfn8xl/0Gw2KbLxeAyLxQIsFgt8p75pDSO7h/HbpUWpewCike9WLpfB7XaDy+WCYrFI/slk8i0MnRRAUt46hPMI4vE4+Hw+ec7t9/44VgWigEeby+UgFArJWjUYOqhWG6x50rpcSfR6PVUfNOgEVRlTX0HhrZBKz4MZjUYWi8VoA+lc9H/VaRZYjBKrtXR8tlwumcFgeMWRbZpA9ORQWfVm8A/FsrLaxebd5wAAAABJRU5ErkJggg==";

describe("normalizeToolResult: realistic server-everything results", () => {
  it("get-structured-content: text already holds the compact JSON, so nothing is appended", () => {
    const weather = { temperature: 33, conditions: "Cloudy", humidity: 82 };
    const result = normalizeToolResult({ content: [{ type: "text", text: JSON.stringify(weather) }], structuredContent: weather });
    expect(result).toEqual({ output: '{"temperature":33,"conditions":"Cloudy","humidity":82}', attachments: [], metadata: {}, isError: false });
    expect(result.output).not.toContain("Structured content:");
  });

  it("get-resource-links: intro text, one line per ordinary link", () => {
    const result = normalizeToolResult({
      content: [
        { type: "text", text: "Here are 2 resource links to resources available in this server:" },
        {
          type: "resource_link",
          uri: "demo://resource/dynamic/blob/1",
          name: "Blob Resource 1",
          description: "Resource 1: binary blob resource",
          mimeType: "application/octet-stream",
        },
        {
          type: "resource_link",
          uri: "demo://resource/dynamic/text/2",
          name: "Text Resource 2",
          description: "Resource 2: plaintext resource",
          mimeType: "text/plain",
        },
      ],
    });
    expect(result.output).toBe(
      [
        "Here are 2 resource links to resources available in this server:",
        "Blob Resource 1: demo://resource/dynamic/blob/1",
        "Text Resource 2: demo://resource/dynamic/text/2",
      ].join("\n"),
    );
    expect(result.attachments).toEqual([]);
    expect(result.isError).toBe(false);
  });

  it("get-tiny-image: texts around the image; the image becomes a data-URL attachment", () => {
    const result = normalizeToolResult({
      content: [
        { type: "text", text: "Here's the image you requested:" },
        { type: "image", data: TINY_PNG, mimeType: "image/png" },
        { type: "text", text: "The image above is the MCP logo." },
      ],
    });
    expect(result.output).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    expect(result.output).not.toContain("iVBOR");
    expect(result.attachments).toEqual([{ mime: "image/png", url: `data:image/png;base64,${TINY_PNG}` }]);
  });

  it("get-resource-reference (text resource): the embedded text goes to the output in order", () => {
    const result = normalizeToolResult({
      content: [
        { type: "text", text: "Returning resource reference for Resource 2:" },
        {
          type: "resource",
          resource: {
            uri: "demo://resource/dynamic/text/2",
            mimeType: "text/plain",
            text: "Resource 2: This is a plaintext resource created at 10:00:00 AM",
          },
        },
        { type: "text", text: "You can access this resource using the URI: demo://resource/dynamic/text/2" },
      ],
    });
    expect(result.output).toBe(
      [
        "Returning resource reference for Resource 2:",
        "Resource 2: This is a plaintext resource created at 10:00:00 AM",
        "You can access this resource using the URI: demo://resource/dynamic/text/2",
      ].join("\n"),
    );
    expect(result.attachments).toEqual([]);
  });

  it("get-resource-reference (blob resource): the blob becomes an attachment, not output", () => {
    const blob = "UmVzb3VyY2UgMTogVGhpcyBpcyBhIGJhc2U2NCBibG9i";
    const result = normalizeToolResult({
      content: [
        { type: "text", text: "Returning resource reference for Resource 1:" },
        { type: "resource", resource: { uri: "demo://resource/dynamic/blob/1", mimeType: "application/octet-stream", blob } },
        { type: "text", text: "You can access this resource using the URI: demo://resource/dynamic/blob/1" },
      ],
    });
    expect(result.output).toBe(
      "Returning resource reference for Resource 1:\nYou can access this resource using the URI: demo://resource/dynamic/blob/1",
    );
    expect(result.output).not.toContain(blob);
    expect(result.attachments).toEqual([{ mime: "application/octet-stream", url: `data:application/octet-stream;base64,${blob}` }]);
  });
});

describe("normalizeToolResult: content blocks", () => {
  it("joins several text blocks with a newline", () => {
    expect(normalizeToolResult({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }, { type: "text", text: "" }] }).output).toBe("a\nb\n");
  });

  it("audio becomes a data-URL attachment", () => {
    const result = normalizeToolResult({ content: [{ type: "audio", data: "UklGRg==", mimeType: "audio/mpeg" }] });
    expect(result.attachments).toEqual([{ mime: "audio/mpeg", url: "data:audio/mpeg;base64,UklGRg==" }]);
    expect(result.output).toBe("");
  });

  it("image/audio without mimeType default to image/png and audio/wav", () => {
    const result = normalizeToolResult({ content: [{ type: "image", data: "AAAA" }, { type: "audio", data: "BBBB" }] });
    expect(result.attachments).toEqual([
      { mime: "image/png", url: "data:image/png;base64,AAAA" },
      { mime: "audio/wav", url: "data:audio/wav;base64,BBBB" },
    ]);
  });

  it("image without data is dropped", () => {
    expect(normalizeToolResult({ content: [{ type: "image", mimeType: "image/png" }] }).attachments).toEqual([]);
  });

  it("resource_link with a base64 data URI becomes an attachment, mime from the block", () => {
    const uri = "data:image/png;base64,iVBORw0KGgo=";
    const result = normalizeToolResult({ content: [{ type: "resource_link", uri, name: "logo", mimeType: "image/png" }] });
    expect(result.attachments).toEqual([{ mime: "image/png", url: uri }]);
    expect(result.output).toBe("");
  });

  it("resource_link with a base64 data URI and no mimeType takes the mime from the URI", () => {
    const uri = "data:application/pdf;name=x.pdf;base64,JVBERi0=";
    const result = normalizeToolResult({ content: [{ type: "resource_link", uri, name: "doc" }] });
    expect(result.attachments).toEqual([{ mime: "application/pdf", url: uri }]);
  });

  it("resource_link with an empty data URI mime falls back to application/octet-stream", () => {
    const uri = "data:;base64,AAAA";
    expect(normalizeToolResult({ content: [{ type: "resource_link", uri, name: "x" }] }).attachments).toEqual([
      { mime: "application/octet-stream", url: uri },
    ]);
  });

  it("resource_link with a non-base64 data URI is omitted entirely", () => {
    const result = normalizeToolResult({
      content: [
        { type: "text", text: "before" },
        { type: "resource_link", uri: "data:text/plain,hello%20world", name: "greeting" },
        { type: "resource_link", uri: "data:text/plain;charset=utf-8,hi", name: "hi" },
      ],
    });
    expect(result.output).toBe("before");
    expect(result.attachments).toEqual([]);
  });

  it("resource_link data URI with an upper-case scheme is still a data URI (never dumped into output)", () => {
    const result = normalizeToolResult({
      content: [
        { type: "resource_link", uri: "DATA:image/png;base64,iVBORw0KGgo=", name: "upper" },
        { type: "resource_link", uri: "Data:text/plain,secret", name: "mixed" },
      ],
    });
    expect(result.output).toBe("");
    expect(result.attachments).toEqual([{ mime: "image/png", url: "DATA:image/png;base64,iVBORw0KGgo=" }]);
  });

  it("resource_link name falls back to title, then to the uri; no uri → nothing", () => {
    const result = normalizeToolResult({
      content: [
        { type: "resource_link", uri: "file:///a.txt", title: "A file" },
        { type: "resource_link", uri: "https://example.com/b" },
        { type: "resource_link", name: "no uri" },
      ],
    });
    expect(result.output).toBe("A file: file:///a.txt\nhttps://example.com/b: https://example.com/b");
  });

  it("embedded resource with text wins over blob; blob without mime is octet-stream", () => {
    const result = normalizeToolResult({
      content: [
        { type: "resource", resource: { uri: "x://1", text: "the text", blob: "AAAA" } },
        { type: "resource", resource: { uri: "x://2", blob: "BBBB" } },
      ],
    });
    expect(result.output).toBe("the text");
    expect(result.attachments).toEqual([{ mime: "application/octet-stream", url: "data:application/octet-stream;base64,BBBB" }]);
  });
});

describe("normalizeToolResult: structured content", () => {
  const data = { items: [{ id: 1, name: "alpha" }], total: 1 };
  const indented = JSON.stringify(data, null, 2);

  it("is used alone, as indented JSON, when there is no text", () => {
    const result = normalizeToolResult({ content: [], structuredContent: data });
    expect(result.output).toBe(indented);
    expect(result.output).not.toContain("Structured content:");
  });

  it("is used alone when content is missing altogether", () => {
    expect(normalizeToolResult({ structuredContent: data }).output).toBe(indented);
  });

  it("is appended after a 'Structured content:' line when the text does not contain it", () => {
    const result = normalizeToolResult({ content: [{ type: "text", text: "Found 1 item." }], structuredContent: data });
    expect(result.output).toBe(`Found 1 item.\nStructured content:\n${indented}`);
  });

  it("is not appended when the text contains it as compact JSON (inside other text)", () => {
    const text = `Result: ${JSON.stringify(data)} (done)`;
    expect(normalizeToolResult({ content: [{ type: "text", text }], structuredContent: data }).output).toBe(text);
  });

  it("is not appended when the text contains it as 2-space indented JSON", () => {
    const text = `Result:\n${indented}`;
    expect(normalizeToolResult({ content: [{ type: "text", text }], structuredContent: data }).output).toBe(text);
  });

  it("is appended when the text holds the JSON with a different indentation", () => {
    const text = JSON.stringify(data, null, 4);
    expect(normalizeToolResult({ content: [{ type: "text", text }], structuredContent: data }).output).toBe(
      `${text}\nStructured content:\n${indented}`,
    );
  });

  it("a null structuredContent is ignored", () => {
    expect(normalizeToolResult({ content: [{ type: "text", text: "hi" }], structuredContent: null }).output).toBe("hi");
    expect(normalizeToolResult({ content: [], structuredContent: null }).output).toBe("");
  });

  it("attachments are kept alongside structured content", () => {
    const result = normalizeToolResult({ content: [{ type: "image", data: "AAAA", mimeType: "image/gif" }], structuredContent: { ok: true } });
    expect(result.output).toBe('{\n  "ok": true\n}');
    expect(result.attachments).toHaveLength(1);
  });
});

describe("normalizeToolResult: metadata and errors", () => {
  it("_meta goes to metadata only, never to the output", () => {
    const result = normalizeToolResult({
      content: [{ type: "text", text: "ok" }],
      _meta: { "io.example/trace": "trace-123", progressToken: 7 },
    });
    expect(result.output).toBe("ok");
    expect(result.metadata).toEqual({ "io.example/trace": "trace-123", progressToken: 7 });
  });

  it("legacy metadata goes to metadata; _meta wins on a shared key", () => {
    const result = normalizeToolResult({
      content: [{ type: "text", text: "ok" }],
      metadata: { source: "legacy", a: 1 },
      _meta: { source: "meta", b: 2 },
    });
    expect(result.metadata).toEqual({ source: "meta", a: 1, b: 2 });
    expect(result.output).not.toContain("legacy");
    expect(result.output).not.toContain("meta");
  });

  it("non-object _meta / metadata are ignored", () => {
    expect(normalizeToolResult({ content: [], _meta: "x", metadata: [1, 2] }).metadata).toEqual({});
  });

  it("isError: true → isError true, with the error text as output", () => {
    const result = normalizeToolResult({ content: [{ type: "text", text: "Error: division by zero" }], isError: true });
    expect(result).toEqual({ output: "Error: division by zero", attachments: [], metadata: {}, isError: true });
  });

  it("isError must be exactly true", () => {
    expect(normalizeToolResult({ content: [], isError: "true" }).isError).toBe(false);
    expect(normalizeToolResult({ content: [], isError: 1 }).isError).toBe(false);
    expect(normalizeToolResult({ content: [], isError: false }).isError).toBe(false);
  });

  it("legacy toolResult (2024-10-07) becomes the output", () => {
    expect(normalizeToolResult({ toolResult: "plain" }).output).toBe("plain");
    expect(normalizeToolResult({ toolResult: { a: 1 } }).output).toBe('{"a":1}');
  });
});

describe("normalizeToolResult: garbage input never throws", () => {
  const garbage: Array<[string, RawToolResult]> = [
    ["empty object", {}],
    ["content is a string", { content: "hello" }],
    ["content is an object", { content: { type: "text", text: "x" } }],
    ["content is a number", { content: 42 }],
    ["content is null", { content: null }],
    ["blocks are null, strings, numbers, arrays", { content: [null, "text", 3, [1], undefined, true] }],
    ["unknown block types", { content: [{ type: "video", data: "x" }, { type: 7 }, {}, { text: "no type" }] }],
    ["wrong field types", { content: [{ type: "text", text: 5 }, { type: "image", data: 1, mimeType: 2 }, { type: "resource_link", uri: 3, name: {} }] }],
    ["resource without resource", { content: [{ type: "resource" }, { type: "resource", resource: null }, { type: "resource", resource: "x" }] }],
    ["odd structuredContent", { content: "x", structuredContent: "just a string" }],
  ];

  for (const [label, input] of garbage) {
    it(label, () => {
      const result = normalizeToolResult(input);
      expect(typeof result.output).toBe("string");
      expect(Array.isArray(result.attachments)).toBe(true);
      expect(result.metadata).toEqual({});
      expect(result.isError).toBe(false);
    });
  }

  it("keeps the valid blocks among garbage", () => {
    const result = normalizeToolResult({ content: [null, "x", { type: "text", text: "kept" }, { type: "bogus" }, { type: "image", data: "AAAA" }] });
    expect(result.output).toBe("kept");
    expect(result.attachments).toEqual([{ mime: "image/png", url: "data:image/png;base64,AAAA" }]);
  });

  it("garbage blocks produce empty output", () => {
    expect(normalizeToolResult({ content: [null, "text", { type: "text", text: 5 }] }).output).toBe("");
  });
});
