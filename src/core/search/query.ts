/**
 * Reading a task. What in it is an argument rather than intent: quoted strings, URLs and e-mail
 * addresses name the things a tool works on ("replace 'old_term' in 'presentation.pptx'"),
 * not what the tool does. (File paths are left as text: their folders and extensions,
 * "/root/pdf/paper.pdf", often say which kind of tool is needed.) `queryParts` splits a
 * query into plain text and such argument spans, so the scorer can weigh argument words
 * less. And where a task of several steps divides: `splitClauses` cuts at sentence
 * ends, semicolons and step words ("then", "after that", "finally", …).
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

/** Clause boundaries: sentence ends and semicolons, or a comma or space before a word that starts a next step. */
const CLAUSE_BREAK = /[.;!?\n]+(?:\s+|$)|,?\s+(?:and\s+)?(?=(?:then|after\s+that|afterwards|finally)\s)/giu;
/** A step word opening a clause ("Then …", "Finally, …"), which says nothing about the tool. */
const STEP_WORD = /^(?:and\s+then|then|after\s+that|afterwards|finally|lastly|next|also|first|second|third)\b[\s,:]*/iu;

export function splitClauses(query: string): string[] {
  return query
    .split(CLAUSE_BREAK)
    .map((clause) => clause.trim().replace(STEP_WORD, ""))
    .filter((clause) => clause.length > 0);
}
