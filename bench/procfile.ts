// The Procfile's command for a process type, as the benches start it: they measure the processes
// as deployed, runtime flags and environment included (the workers' `--smol`, the web process's
// allocator settings; docs/decisions.md). The bun running the bench stands in for `bun`.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const BUN = process.execPath;

export interface ProcfileEntry {
  /** The program and its arguments; bun's flags (`--smol`) stay where the Procfile has them. */
  argv: string[];
  /** What a leading `env NAME=value …` sets for the process. */
  env: Record<string, string>;
}

/** The Procfile's process types and their commands as written, as a Procfile runner reads them. */
export function procfileCommands(dir = ROOT): Record<string, string> {
  const entries = readFileSync(join(dir, "Procfile"), "utf8").split("\n").map((l) => /^([a-z]+):\s*(.+)$/.exec(l.trim())).filter((m) => m !== null);
  return Object.fromEntries(entries.map((m) => [m[1]!, m[2]!]));
}

export function procfileEntry(name: string): ProcfileEntry {
  const command = procfileCommands()[name];
  if (!command) throw new Error(`Procfile has no ${name} entry`);
  let words = command.split(/\s+/);
  const env: Record<string, string> = {};
  if (words[0] === "env") {
    words = words.slice(1);
    while (words[0]?.includes("=")) {
      const [key, ...value] = words.shift()!.split("=");
      env[key!] = value.join("=");
    }
  }
  const [cmd, ...args] = words;
  return { argv: [cmd === "bun" ? BUN : cmd!, ...args], env };
}
