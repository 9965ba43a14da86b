/**
 * The soak's measuring pieces, apart from the run itself (bench/soak.mjs): latency
 * figures per kind of operation, failures grouped by what went wrong, a least-squares
 * slope for memory samples, and an event-stream reader that checks every event id
 * arrives once and in order (or is accounted for by a `gap` event).
 */
import { percentile } from "./lib.mjs";

/** Latencies (ms) by kind of operation; `summary()` gives count, p50/p90/p99, mean, max. */
export function latencyBook() {
  const byKind = new Map();
  return {
    add(kind, ms) {
      const list = byKind.get(kind) ?? [];
      list.push(ms);
      byKind.set(kind, list);
    },
    summary(kinds = [...byKind.keys()]) {
      const all = kinds.flatMap((k) => byKind.get(k) ?? []);
      return figures(all);
    },
    kinds: () => [...byKind.keys()].sort(),
  };
}

export function figures(values) {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0 };
  return {
    count: n,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / n,
    max: sorted[n - 1],
  };
}

/** Failures grouped by kind and message: how many of each, when the first and last came. */
export function errorBook() {
  const groups = new Map();
  let total = 0;
  return {
    add(kind, message, at) {
      total++;
      const key = `${kind}: ${String(message).replace(/\s+/g, " ").slice(0, 240)}`;
      const group = groups.get(key) ?? { kind, message: key.slice(kind.length + 2), count: 0, firstAtS: at, lastAtS: at };
      group.count++;
      group.lastAtS = at;
      groups.set(key, group);
    },
    get total() {
      return total;
    },
    list: () => [...groups.values()].sort((a, b) => b.count - a.count),
  };
}

/** Least-squares slope of y over x (undefined with fewer than two distinct x). */
export function slope(points) {
  const n = points.length;
  if (n < 2) return undefined;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? undefined : num / den;
}

/**
 * Reads a session's event stream (Server-Sent Events) until it ends or `signal` aborts.
 * Counts events by type; checks ids: each next id is the previous + 1, or a `gap`
 * event accounts for the missed ones (its id is the last missed event's). Tool progress
 * is kept per call id so long calls can be matched to the progress they reported.
 */
export async function readEvents(url, signal, { onOpen } = {}) {
  const stats = {
    opened: false,
    endedByServer: false,
    error: undefined,
    events: 0,
    byType: {},
    missedInGaps: 0,
    outOfOrder: 0,
    lastId: undefined,
    /** callId → { name, progress: number of tool.progress events, atMs: arrival times, finished?: {isError, ms, error?} } */
    calls: new Map(),
  };
  const call = (id) => {
    let entry = stats.calls.get(id);
    if (!entry) stats.calls.set(id, (entry = { name: undefined, progress: 0, atMs: [], finished: undefined }));
    return entry;
  };
  const onEvent = (id, type, data) => {
    stats.events++;
    stats.byType[type] = (stats.byType[type] ?? 0) + 1;
    if (id !== undefined) {
      if (type === "gap") {
        stats.missedInGaps += Number(data?.missed ?? 0);
      } else if (stats.lastId !== undefined && id !== stats.lastId + 1) {
        stats.outOfOrder++;
      }
      stats.lastId = id;
    }
    if (type === "tool.started") call(data.callId).name = data.name;
    if (type === "tool.progress") {
      const entry = call(data.callId);
      entry.progress++;
      entry.atMs.push(Date.now());
    }
    if (type === "tool.finished") call(data.callId).finished = { isError: data.isError, ms: data.ms, ...(data.error ? { error: data.error } : {}) };
  };
  try {
    const response = await fetch(url, { headers: { accept: "text/event-stream" }, signal });
    if (response.status !== 200 || !response.body) throw new Error(`GET events: HTTP ${response.status}`);
    stats.opened = true;
    onOpen?.();
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id;
        let type = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("id:")) id = Number(line.slice(3).trim());
          else if (line.startsWith("event:")) type = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length) onEvent(id, type, JSON.parse(data.join("\n")));
      }
    }
    stats.endedByServer = true;
  } catch (error) {
    if (!signal.aborted) stats.error = error?.message ?? String(error);
  }
  return stats;
}
