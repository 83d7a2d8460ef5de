// Where a run's WAL went, per accepted message: by relation and record kind, full-page images
// apart (PostgreSQL's pg_walinspect, read right after the run, before a checkpoint can recycle
// its segments). Why: WAL bytes per message set how often the load reaches max_wal_size, and
// after each checkpoint starts the commits flush page images too (round 22's p99 stalls); this
// says which index or table a change would have to spare. bench/ingest.ts with BENCH_WAL_BY_RELATION=1.
import type postgres from "postgres";

/** Rows printed per side: the rest is a long tail of a few bytes each. */
const TOP_RELATIONS = 12;

/**
 * One line per relation and record kind between two WAL positions (in bytes, as the run's WAL
 * figure takes them), largest first, in bytes per accepted message (records of other databases
 * are left out). The extension is created in the side's own database (superuser), after `to`:
 * its own records stay out of the range; without it, one line that says why not.
 */
export async function walByRelation(sql: postgres.Sql, from: number, to: number, accepted: number): Promise<string[]> {
  try {
    await sql`create extension if not exists pg_walinspect`;
    const rows = await sql<{ rel: string; kind: string; records: string; bytes: string; fpi: string }[]>`
      with r as (
        select resource_manager || ' ' || split_part(record_type, ' ', 1) as kind, record_length, fpi_length,
          regexp_match(block_ref, 'rel \\d+/(\\d+)/(\\d+)') as ref
        from pg_get_wal_records_info('0/0'::pg_lsn + ${from}::numeric, '0/0'::pg_lsn + ${to}::numeric))
      select c.relname as rel, r.kind, count(*)::text as records, sum(r.record_length)::text as bytes, sum(r.fpi_length)::text as fpi
      from r join pg_class c on c.relfilenode = r.ref[2]::oid
      where r.ref[1]::oid = (select oid from pg_database where datname = current_database())
      group by 1, 2 order by sum(r.record_length) desc limit ${TOP_RELATIONS}`;
    const per = (x: string) => Number(x) / Math.max(1, accepted);
    return rows.map((r) =>
      `${r.rel.padEnd(36)} ${r.kind.padEnd(20)} ${per(r.records).toFixed(2).padStart(5)} records ${per(r.bytes).toFixed(0).padStart(5)} B (page images ${per(r.fpi).toFixed(0)} B)`);
  } catch (err) {
    return [`WAL by relation unavailable: ${(err as Error).message}`];
  }
}
