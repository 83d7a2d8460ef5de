// Report queries: they read the roll-ups sql/220_reports.sql keeps (report_conversations,
// report_incoming_quarters), never the messages table. Times are bucketed in the requested
// IANA zone by PostgreSQL, so days across a DST change are the zone's own days.
import type { Queryable } from "./driver.ts";

/** Which conversations a report covers: opened (created) in [from, to), of these bots, one channel or all. */
export interface DbReportScope {
  botIds: string[];
  from: Date;
  to: Date;
  channel: string | null;
}

const scopeParams = (s: DbReportScope) => [s.botIds, s.from.toISOString(), s.to.toISOString(), s.channel];
const COHORT = `r.bot_id = any($1::uuid[]) and r.created_at >= $2::timestamptz and r.created_at < $3::timestamptz
  and ($4::text is null or r.channel = $4::text)`;


/** The instant of each local wall-clock time (YYYY-MM-DD[THH:MI[:SS]]) in `tz`; throws SQLSTATE 22023 for a zone PostgreSQL does not know. */
export async function localTimesIn(db: Queryable, tz: string, times: string[]): Promise<Date[]> {
  const rows = await db.query<{ at: Date | string }>(
    `select (v.t::timestamp at time zone $1::text) as at from unnest($2::text[]) with ordinality as v(t, i) order by v.i`,
    [tz, times],
  );
  return rows.map((r) => new Date(r.at));
}

export interface DbReportSummary {
  opened: number;
  closed: number;
  /** [median, p90]; null without data */
  first_response_s: [number, number] | null;
  resolution_s: [number, number] | null;
  contained: number;
  handed_off: number;
  csat_count: number;
  csat_average: number | null;
}

export async function reportSummary(db: Queryable, scope: DbReportScope): Promise<DbReportSummary> {
  const rows = await db.query<DbReportSummary>(
    `select count(*)::int as opened,
       count(r.first_closed_at)::int as closed,
       percentile_cont(array[0.5, 0.9]) within group (order by r.first_response_s) filter (where r.first_response_s is not null) as first_response_s,
       percentile_cont(array[0.5, 0.9]) within group (order by r.resolution_s) filter (where r.resolution_s is not null) as resolution_s,
       count(*) filter (where r.first_closed_at is not null and not r.had_operator_message and not r.had_handoff)::int as contained,
       count(*) filter (where r.first_closed_at is not null and r.had_handoff)::int as handed_off,
       count(r.rating)::int as csat_count,
       avg(r.rating)::float8 as csat_average
     from report_conversations r where ${COHORT}`,
    scopeParams(scope),
  );
  return rows[0]!;
}

export type ReportMetric = "conversations" | "first_response" | "resolution";
export type ReportGroup = "day" | "hour";
export type ReportBy = "channel" | "agent";

export interface DbSeriesPoint {
  /** The bucket's start as a local wall-clock time in the zone, YYYY-MM-DDTHH:MI:SS. */
  local: string;
  /** The zone's offset from UTC at that time, in seconds. */
  offset_s: number;
  key: string | null;
  value: number;
}

const METRIC_VALUE: Record<ReportMetric, string> = {
  conversations: "count(*)::float8",
  first_response: "percentile_cont(0.5) within group (order by r.first_response_s) filter (where r.first_response_s is not null)",
  resolution: "percentile_cont(0.5) within group (order by r.resolution_s) filter (where r.resolution_s is not null)",
};

/** Who a conversation is reported under: its channel, or its assignee (user id, named after grouping). */
const KEY: Record<ReportBy | "none", string> = { channel: "r.channel", agent: "r.assignee_id::text", none: "null::text" };

/** One point per bucket (and key) with conversations; the time metrics are medians in seconds. */
export async function reportSeries(
  db: Queryable, scope: DbReportScope, tz: string, metric: ReportMetric, group: ReportGroup, by: ReportBy | null,
): Promise<DbSeriesPoint[]> {
  // E-mails are looked up for the few keys left after grouping, not per conversation.
  return db.query<DbSeriesPoint>(
    `select to_char(s.b, 'YYYY-MM-DD"T"HH24:MI:SS') as local,
       extract(epoch from (s.b - ((s.b at time zone $5::text) at time zone 'UTC')))::int as offset_s,
       ${by === "agent" ? "coalesce(u.email, 'unassigned')" : "s.key"} as key, s.value
     from (select date_trunc($6::text, r.created_at at time zone $5::text) as b, ${KEY[by ?? "none"]} as key, ${METRIC_VALUE[metric]} as value
           from report_conversations r
           where ${COHORT} group by 1, 2) s
     ${by === "agent" ? "left join users u on u.id::text = s.key" : ""}
     where s.value is not null
     order by s.b, 3`,
    [...scopeParams(scope), tz, group],
  );
}

export interface DbHeatCell {
  /** 0 = Monday … 6 = Sunday, in the zone. */
  weekday: number;
  hour: number;
  incoming: number;
}

/** Incoming messages sent in [from, to) by weekday and hour in the zone, from the quarter-hour roll-up. */
export async function reportHeatmap(db: Queryable, scope: DbReportScope, tz: string): Promise<DbHeatCell[]> {
  return db.query<DbHeatCell>(
    `select extract(isodow from q.quarter at time zone $5::text)::int - 1 as weekday,
       extract(hour from q.quarter at time zone $5::text)::int as hour, sum(q.incoming)::int as incoming
     from report_incoming_quarters q
     where q.bot_id = any($1::uuid[]) and q.quarter >= $2::timestamptz and q.quarter < $3::timestamptz
       and ($4::text is null or q.channel = $4::text)
     group by 1, 2`,
    [...scopeParams(scope), tz],
  );
}

/** Whether any conversation of these bots exists at all: tells "no data yet" from "nothing in this range". */
export async function firstConversationAt(db: Queryable, botIds: string[]): Promise<Date | null> {
  // One index probe per bot (min() over "= any(array)" would read every row of the bots).
  const rows = await db.query<{ at: Date | string | null }>(
    `select min(f.at) as at from unnest($1::uuid[]) as b(id)
     cross join lateral (select r.created_at as at from report_conversations r where r.bot_id = b.id order by r.created_at limit 1) f`,
    [botIds],
  );
  return rows[0]?.at ? new Date(rows[0].at) : null;
}
