// Reports a team lead reads: volume, response and resolution times, bot containment,
// satisfaction, and when visitors write. Scoped like the inbox: one bot the caller is a member
// of, or every such bot. Definitions (docs/design.md §13.4): a conversation counts when it
// was created in [from, to); every figure is over that cohort, so a number never changes
// meaning with the grouping.
import { AppError, badRequest } from "../core/errors.ts";
import { REPORT_DEFAULT_RANGE_DAYS, REPORT_MAX_HOURLY_RANGE_DAYS, REPORT_MAX_RANGE_DAYS } from "../core/limits.ts";
import type { Db } from "../db/driver.ts";
import { listMemberBots } from "../db/members.ts";
import {
  firstConversationAt, localTimesIn, reportHeatmap, reportSeries, reportSummary,
  type DbReportScope, type ReportBy, type ReportGroup, type ReportMetric,
} from "../db/reports.ts";
import { requireMember } from "./members.ts";

export interface ReportQuery {
  bot_id?: string;
  channel?: string;
  from?: string;
  to?: string;
  tz?: string;
}

export interface SeriesQuery extends ReportQuery {
  metric: ReportMetric;
  group?: ReportGroup;
  by?: ReportBy;
}

export interface ReportRange {
  from: string;
  to: string;
  tz: string;
  /** When the first conversation of these bots was created (null: none yet): the page tells "no data yet" from "nothing in this range". */
  first_conversation_at: string | null;
}

export interface ReportSummary {
  conversations: { opened: number; closed: number };
  first_response: { median_s: number | null; p90_s: number | null };
  resolution: { median_s: number | null; p90_s: number | null };
  bot_containment: number | null;
  handoff_rate: number | null;
  csat: { count: number; average: number | null };
  range: ReportRange;
}

export interface SeriesPoint {
  t: string;
  key?: string;
  value: number;
}

export interface ReportSeries {
  points: SeriesPoint[];
  range: ReportRange;
}

export interface ReportHeatmap {
  /** 7 rows, Monday first, of 24 hours: incoming messages. */
  counts: number[][];
  range: ReportRange;
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;
const ZONED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/i;

function checkZone(tz: string): string {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
  } catch {
    throw badRequest(`tz: unknown time zone ${JSON.stringify(tz)} (an IANA name such as Europe/Berlin)`);
  }
  return tz;
}

const nextDate = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/** A date's `to` means through the end of that day; a time is exclusive. */
async function instantOf(db: Db, field: "from" | "to", value: string, tz: string): Promise<Date> {
  if (ZONED_TIME.test(value)) {
    const at = new Date(value);
    if (!Number.isNaN(at.getTime())) return at;
  } else if (DATE.test(value) || LOCAL_TIME.test(value)) {
    if (!Number.isNaN(Date.parse(DATE.test(value) ? `${value}T00:00:00Z` : `${value}Z`))) {
      const local = DATE.test(value) && field === "to" ? nextDate(value) : value;
      try {
        return (await localTimesIn(db, tz, [local]))[0]!;
      } catch (err) {
        if ((err as { code?: string }).code?.startsWith("22")) throw badRequest(`tz: time zone ${JSON.stringify(tz)} is not known to the database`);
        throw err;
      }
    }
  }
  throw badRequest(`${field}: expected an ISO date (2026-03-29) or time (2026-03-29T10:00:00+02:00), got ${JSON.stringify(value)}`);
}

async function scopeOf(db: Db, userId: string, q: ReportQuery, group: ReportGroup | null): Promise<{ scope: DbReportScope; range: ReportRange }> {
  const tz = checkZone(q.tz ?? "UTC");
  const botIds = q.bot_id ? [(await requireMember(db, userId, q.bot_id)).id] : (await listMemberBots(db, userId)).map((b) => b.id);
  const to = q.to ? await instantOf(db, "to", q.to, tz) : new Date();
  const from = q.from ? await instantOf(db, "from", q.from, tz) : new Date(to.getTime() - REPORT_DEFAULT_RANGE_DAYS * DAY_MS);
  if (from >= to) throw badRequest("from must be before to");
  const days = (to.getTime() - from.getTime()) / DAY_MS;
  if (days > REPORT_MAX_RANGE_DAYS) throw badRequest(`the range covers at most ${REPORT_MAX_RANGE_DAYS} days`);
  if (group === "hour" && days > REPORT_MAX_HOURLY_RANGE_DAYS) throw badRequest(`group=hour covers at most ${REPORT_MAX_HOURLY_RANGE_DAYS} days; use group=day`);
  const first = botIds.length ? await firstConversationAt(db, botIds) : null;
  return {
    scope: { botIds, from, to, channel: q.channel ?? null },
    range: { from: from.toISOString(), to: to.toISOString(), tz, first_conversation_at: first?.toISOString() ?? null },
  };
}

/** PostgreSQL may still refuse a zone ICU knows (or the reverse): that is the caller's input, 400. */
async function inZone<T>(tz: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof AppError) && (err as { code?: string }).code === "22023") throw badRequest(`tz: time zone ${JSON.stringify(tz)} is not known to the database`);
    throw err;
  }
}

const wholeSeconds = (v: number | null) => (v === null ? null : Math.round(v));
const share = (part: number, whole: number) => (whole === 0 ? null : part / whole);

export async function summary(deps: { db: Db }, userId: string, q: ReportQuery): Promise<ReportSummary> {
  const { scope, range } = await scopeOf(deps.db, userId, q, null);
  const s = await reportSummary(deps.db, scope);
  return {
    conversations: { opened: s.opened, closed: s.closed },
    first_response: { median_s: wholeSeconds(s.first_response_s?.[0] ?? null), p90_s: wholeSeconds(s.first_response_s?.[1] ?? null) },
    resolution: { median_s: wholeSeconds(s.resolution_s?.[0] ?? null), p90_s: wholeSeconds(s.resolution_s?.[1] ?? null) },
    bot_containment: share(s.contained, s.closed),
    handoff_rate: share(s.handed_off, s.closed),
    csat: { count: s.csat_count, average: s.csat_average === null ? null : Math.round(s.csat_average * 100) / 100 },
    range,
  };
}

const pad = (n: number) => String(n).padStart(2, "0");
function offsetText(seconds: number): string {
  const sign = seconds < 0 ? "-" : "+";
  const abs = Math.abs(seconds);
  return `${sign}${pad(Math.floor(abs / 3600))}:${pad(Math.floor((abs % 3600) / 60))}`;
}

export async function series(deps: { db: Db }, userId: string, q: SeriesQuery): Promise<ReportSeries> {
  const group = q.group ?? "day";
  const { scope, range } = await scopeOf(deps.db, userId, q, group);
  const rows = await inZone(range.tz, () => reportSeries(deps.db, scope, range.tz, q.metric, group, q.by ?? null));
  const points = rows.map((r): SeriesPoint => {
    const value = q.metric === "conversations" ? r.value : Math.round(r.value);
    const t = `${r.local}${offsetText(r.offset_s)}`;
    return r.key === null ? { t, value } : { t, key: r.key, value };
  });
  return { points, range };
}

export async function heatmap(deps: { db: Db }, userId: string, q: ReportQuery): Promise<ReportHeatmap> {
  const { scope, range } = await scopeOf(deps.db, userId, q, null);
  const cells = await inZone(range.tz, () => reportHeatmap(deps.db, scope, range.tz));
  const counts = Array.from({ length: 7 }, () => new Array<number>(24).fill(0));
  for (const c of cells) counts[c.weekday]![c.hour] = c.incoming;
  return { counts, range };
}
