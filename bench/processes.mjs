/**
 * Child processes of the benchmark scripts and what Linux's /proc says about them: name,
 * parent, start time, CPU time and resident memory of a process, every descendant of a
 * process, and peers (the bridge CLI, supergateway) started, watched and stopped with
 * everything they started. Plain Node; without /proc the figures are absent, not wrong.
 */
import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const PEER_LOGS = Boolean(process.env.PEER_LOGS);

/** Clock ticks per second of /proc's CPU times. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * Linux: a process's name, parent, start time and CPU time so far (ms, user + system)
 * from /proc, or undefined once it is gone.
 */
export function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    return { comm, ppid: Number(fields[1]), start: fields[19], cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK };
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in MiB (VmRSS), or undefined once it is gone. */
export function rssMiB(pid) {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Every live descendant of `pid` with its name and start time (to never signal a reused pid). */
export function descendants(pid) {
  let pids;
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return []; // no /proc: the peers' own shutdown has to do
  }
  const children = new Map();
  for (const name of pids) {
    const stat = procStat(name);
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push({ pid: Number(name), start: stat.start, comm: stat.comm });
    children.set(stat.ppid, list);
  }
  const out = [];
  const queue = [pid];
  while (queue.length) {
    for (const child of children.get(queue.shift()) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** Those of `procs` ({pid, start}) still alive as the same process (a reused pid does not count). */
export function stillAlive(procs) {
  return procs.filter(({ pid, start }) => procStat(pid)?.start === start);
}

export function killKnown(procs, signal) {
  for (const { pid } of stillAlive(procs)) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Spawns a peer process. Its output is kept (the last 8 KB, for error messages) or shown
 * with PEER_LOGS. stop(): SIGTERM (its own orderly shutdown), SIGKILL after 4 s, then
 * SIGKILL for anything it had started that outlived it; also done synchronously if this
 * process exits first. stop({ sweep: false }) leaves what outlived it alone (for a caller
 * that counts leftovers first: then call sweep()).
 */
export function startPeer(name, command, args, { env = process.env } = {}) {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let tail = "";
  const keep = (chunk) => {
    if (PEER_LOGS) process.stderr.write(`[${name}] ${chunk}`);
    tail = (tail + chunk).slice(-8192);
  };
  child.stdout.setEncoding("utf8").on("data", keep);
  child.stderr.setEncoding("utf8").on("data", keep);
  child.once("error", (error) => keep(`spawn failed: ${error.message}\n`));
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  let known = [];
  const killAll = () => {
    known = [...known, ...descendants(child.pid)];
    if (!gone()) child.kill("SIGKILL");
    killKnown(known, "SIGKILL");
  };
  process.once("exit", killAll);
  const sweep = () => {
    killKnown(known, "SIGKILL");
    process.removeListener("exit", killAll);
  };
  let stopping;
  return {
    name,
    child,
    exited,
    log: () => tail.trim(),
    /** What it had started when stop() began (pid, start, comm). */
    known: () => known,
    sweep,
    stop: ({ sweep: sweepAfter = true } = {}) =>
      (stopping ??= (async () => {
        known = descendants(child.pid);
        if (!gone()) {
          child.kill("SIGTERM");
          const timer = setTimeout(() => {
            known = [...known, ...descendants(child.pid)];
            child.kill("SIGKILL");
          }, 4000);
          await exited;
          clearTimeout(timer);
        }
        // What it started and did not end itself (it had up to 4 s to).
        await new Promise((r) => setTimeout(r, 200));
        if (sweepAfter) sweep();
      })()),
  };
}

/** Rejects when the peer exits before `ready` settles, with the end of its output. */
export async function whileAlive(peer, ready) {
  const died = peer.exited.then(({ code, signal }) => {
    throw new Error(`${peer.name} exited (${signal ?? `code ${code}`}) while starting${peer.log() ? `:\n${peer.log()}` : ""}`);
  });
  died.catch(() => undefined);
  return Promise.race([ready, died]);
}
