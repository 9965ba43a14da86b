/**
 * What in a task is an argument rather than intent: quoted strings, URLs and e-mail
 * addresses name the things a tool works on ("replace 'old_term' in 'presentation.pptx'"),
 * not what the tool does. (File paths are left as text: their folders and extensions,
 * "/root/pdf/paper.pdf", often say which kind of tool is needed.) `queryParts` splits a query into plain
 * text and such argument spans, so the scorer can weigh argument words less.
 */

export interface QueryPart {
  text: string;
  argument: boolean;
}

/** Quoted text (ASCII or typographic quotes), a URL, or an e-mail address. */
const ARGUMENT = new RegExp(
  [
    String.raw`(?<=^|[\s(\[{:,=])(["'\x60])[^\n]*?\1(?=$|[\s.,;:!?)\]}])`,
    String.raw`“[^”\n]*”`,
    String.raw`‘[^’\n]*’`,
    String.raw`\b[a-z][a-z0-9+.-]*://\S+`,
    String.raw`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`,
  ].join("|"),
  "giu",
);

export function queryParts(query: string): QueryPart[] {
  const parts: QueryPart[] = [];
  let last = 0;
  for (const match of query.matchAll(ARGUMENT)) {
    if (match.index > last) parts.push({ text: query.slice(last, match.index), argument: false });
    parts.push({ text: match[0], argument: true });
    last = match.index + match[0].length;
  }
  if (last < query.length) parts.push({ text: query.slice(last), argument: false });
  return parts;
}
