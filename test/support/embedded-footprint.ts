// Run by test/server/idle-footprint.test.ts as a process of its own: the embedded default as
// `npm start` runs it (web, webhook, push and mail workers, PGlite in DATA_DIR); once it has
// served for a moment it reports which libraries are loaded and its resident memory, then drains.
import { readFileSync } from "node:fs";
import { main } from "../../src/server.ts";

/**
 * Start-up's garbage has been handed back by then, as in bench/ingest.ts's idle reading. The
 * workers' first scans come at 5 s and hold ~9 MB more for a few seconds; from ~20 s on the
 * process reads within 4 MB of its 2 s figure (141 → 140, 146 → 142 MB at 45 s, round 9).
 */
const SETTLE_MS = 2_000;

await main("all", { migrate: true });
await Bun.sleep(SETTLE_MS);
const packages = Object.keys(require.cache).flatMap((path) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? []);
const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
console.log(`FOOTPRINT ${JSON.stringify({ loaded: [...new Set(packages)], rssMb: Math.round(rssKb / 1024) })}`);
process.kill(process.pid, "SIGTERM");
