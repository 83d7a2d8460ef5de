// Time per statement on PGlite: its own query() (the baseline: unnamed, parsed and planned on
// every call over six calls into the backend) against the embedded driver's kept statements
// (src/db/pglite-statements.ts: parsed once, one call per run, planned on every run as the
// driver's plan_cache_mode says). One process, in memory, nothing else running in it; each
// figure is the median of BENCH_RUNS runs, the two alternating.
//   bun bench/pglite-statements.ts
import { PGlite } from "@electric-sql/pglite";
import { KeptStatements, PLAN_EVERY_RUN } from "../src/db/pglite-statements.ts";
import { percentile } from "./stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Rows in the probed table: enough that a plan reading all of it would show. */
const ROWS = 20_000;

const pg = await PGlite.create({ startParams: [...PGlite.defaultStartParams, "-c", PLAN_EVERY_RUN] });
await pg.exec(`
  create table probe (id uuid primary key default gen_random_uuid(), bot int not null, key text not null, body text,
    at timestamptz not null default now(), n int not null default 0);
  create unique index on probe (bot, key);
  create index on probe (bot, at desc);
  insert into probe (bot, key, body) select g % 10, 'k' || g, 'body ' || g from generate_series(1, ${ROWS}) g;
`);
const kept = new KeptStatements(pg);
const keptQuery = (text: string, params: unknown[]) => kept.alone(text, params);

const key = (i: number) => [i % 10, `k${(i % ROWS) + 1}`];
const cases: { name: string; text: string; params: (i: number) => unknown[]; count: number }[] = [
  { name: "row by unique key", text: "select id, bot, key, body, at, n from probe where bot = $1 and key = $2", params: key, count: 4000 },
  { name: "update by unique key", text: "update probe set n = n + 1, at = now() where bot = $1 and key = $2 returning id, n", params: key, count: 4000 },
  {
    name: "page of 20 with a subquery",
    text: "select p.id, p.key, (select count(*) from probe q where q.bot = p.bot and q.at > p.at) as later from probe p where p.bot = $1 order by p.at desc limit 20",
    params: (i) => [i % 10],
    count: 300,
  },
];

async function microsPerStatement(run: (text: string, params: unknown[]) => Promise<unknown>, c: (typeof cases)[number]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < c.count; i++) await run(c.text, c.params(i));
  return ((performance.now() - started) / c.count) * 1000;
}

console.log(`PGlite in memory, ${ROWS} rows, median of ${RUNS} run(s), µs per statement`);
for (const c of cases) {
  // Warm-up: the first run of each prepares, and JIT tiers settle.
  await microsPerStatement((t, p) => pg.query(t, p), { ...c, count: Math.ceil(c.count / 4) });
  await microsPerStatement(keptQuery, { ...c, count: Math.ceil(c.count / 4) });
  const baseline: number[] = [];
  const product: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    baseline.push(await microsPerStatement((t, p) => pg.query(t, p), c));
    product.push(await microsPerStatement(keptQuery, c));
  }
  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  const [b, k] = [median(baseline), median(product)];
  console.log(`${c.name.padEnd(28)} query() ${b.toFixed(0).padStart(5)} µs   kept ${k.toFixed(0).padStart(5)} µs   ×${(b / k).toFixed(2)} faster`);
}
await pg.close();
