// `npm run bench`: runs every benchmark in turn, each in its own process so one's
// memory and connections never skew the next. Each prints its numbers next to a
// baseline measured in the same run. Pass names to run a subset: `npm run bench -- delivery`.
import { existsSync } from "node:fs";
import { join } from "node:path";

const BENCHES = ["delivery", "poll", "inbox", "webhooks", "ingest", "files", "pglite-statements"];
const chosen = process.argv.slice(2).filter((a) => !a.startsWith("-"));
let failed = false;
for (const name of chosen.length ? chosen : BENCHES) {
  const file = join(import.meta.dir, `${name}.ts`);
  if (!existsSync(file)) {
    console.log(`\n== ${name}: not present, skipped`);
    continue;
  }
  console.log(`\n== ${name}`);
  const proc = Bun.spawn([process.execPath, file], { stdout: "inherit", stderr: "inherit", env: process.env });
  if ((await proc.exited) !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
