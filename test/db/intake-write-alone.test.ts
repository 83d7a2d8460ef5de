// The write of a batch planned from memory, sent alone (db/intake-write.ts writeKnownBatchAlone):
// the function that runs it (sql/320) is defined by a migration, the write's text by the code;
// the two must not drift apart, and the function must keep the plans the transactions keep.
import { expect, test } from "bun:test";
import { WRITE_KNOWN_ALONE_BODY } from "../../src/db/intake-write.ts";
import { KEPT_PLANS } from "../../src/db/intake-plans.ts";
import { sharedDb } from "../support/harness.ts";

const collapsed = (text: string) => text.replace(/\s+/g, " ").trim();

test("intake_write_known_v1 runs exactly the code's write, on kept plans (a changed write needs a new function in a new migration)", async () => {
  const db = await sharedDb();
  const [fn] = await db.query<{ body: string; settings: string[] | null }>(
    `select prosrc as body, proconfig as settings from pg_proc where proname = 'intake_write_known_v1'`);
  expect(fn).toBeDefined();
  expect(collapsed(fn!.body)).toBe(collapsed(WRITE_KNOWN_ALONE_BODY));
  expect([...(fn!.settings ?? [])].sort()).toEqual(KEPT_PLANS.map(([name, value]) => `${name}=${value}`).sort());
});
