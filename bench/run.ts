// `npm run bench`: runs every benchmark in turn, each in its own process so one's
// memory and connections never skew the next. Each prints its numbers next to a
// baseline measured in the same run. Pass names to run a subset: `npm run bench -- delivery`.
// A bench that serves in its own process gets the environment the Procfile gives the process
// it stands for (the allocator settings, docs/decisions.md round 19); ingest and the soak start
// the Procfile's processes themselves.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { procfileEntry } from "./procfile.ts";

const BENCHES = ["delivery", "poll", "inbox", "webhooks", "ingest", "files", "pglite-statements"];
/** The Procfile process each in-process bench stands for; the rest stand for `web`. */
const STANDS_FOR: Record<string, string> = { webhooks: "webhook" };
const chosen = process.argv.slice(2).filter((a) => !a.startsWith("-"));
let failed = false;
for (const name of chosen.length ? chosen : BENCHES) {
  const file = join(import.meta.dir, `${name}.ts`);
  if (!existsSync(file)) {
    console.log(`\n== ${name}: not present, skipped`);
    continue;
  }
  console.log(`\n== ${name}`);
  const env = { ...procfileEntry(STANDS_FOR[name] ?? "web").env, ...process.env };
  const proc = Bun.spawn([process.execPath, file], { stdout: "inherit", stderr: "inherit", env });
  if ((await proc.exited) !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
