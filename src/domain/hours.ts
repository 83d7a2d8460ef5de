// Working hours per bot: a weekly schedule in the bot's IANA time zone, holidays, and the away
// message. Local time comes from Intl (the runtime's own time zone data): a wall-clock
// schedule stays right across daylight-saving changes without a time zone library.
import { badRequest } from "../core/errors.ts";
import type { Db } from "../db/driver.ts";
import { anyMemberOnline, findHours, upsertHours, type DbHours, type Weekly } from "../db/hours.ts";
import type { BotDirectory } from "./directory.ts";
import { requireMember } from "./members.ts";

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Why: a split shift or two is real; dozens of intervals a day is a mistake or abuse. */
export const MAX_INTERVALS_PER_DAY = 8;
/** Why: a year of public holidays and closures fits several times over. */
export const MAX_HOLIDAYS = 100;
export const MAX_AWAY_MESSAGE_LENGTH = 1000;

export interface HoursInput {
  timezone: string;
  weekly: Partial<Record<Weekday, [string, string][]>>;
  holidays?: string[];
  away_message?: string;
}

export interface Hours {
  timezone: string;
  weekly: Record<Weekday, [string, string][]>;
  holidays: string[];
  away_message: string;
  /** Whether the bot is within its hours now (always true while no hours are set). */
  open_now: boolean;
  /** false until the owner sets hours: then the bot counts as always open. */
  configured: boolean;
}

const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

export function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Checks what TypeBox cannot (times, order, the zone name); returns the stored form. */
export function normaliseHours(input: HoursInput): { timezone: string; weekly: Weekly; holidays: string[]; away_message: string } {
  if (!validTimeZone(input.timezone)) throw badRequest("timezone: not an IANA time zone name (for example Europe/Berlin)");
  const weekly: Weekly = {};
  for (const day of WEEKDAYS) {
    const intervals = input.weekly[day] ?? [];
    if (intervals.length > MAX_INTERVALS_PER_DAY) throw badRequest(`weekly.${day}: at most ${MAX_INTERVALS_PER_DAY} intervals`);
    for (const [from, to] of intervals) {
      if (!TIME.test(from) || !TIME.test(to)) throw badRequest(`weekly.${day}: times are "HH:MM" (00:00 to 24:00)`);
      if (from >= to) throw badRequest(`weekly.${day}: an interval must start before it ends (${from}–${to})`);
    }
    weekly[day] = intervals.map(([from, to]) => [from, to]);
  }
  for (const key of Object.keys(input.weekly)) {
    if (!(WEEKDAYS as readonly string[]).includes(key)) throw badRequest(`weekly.${key}: days are ${WEEKDAYS.join(", ")}`);
  }
  const holidays = [...new Set(input.holidays ?? [])].sort();
  if (holidays.length > MAX_HOLIDAYS) throw badRequest(`holidays: at most ${MAX_HOLIDAYS}`);
  for (const date of holidays) if (!DATE.test(date)) throw badRequest(`holidays: "${date}" is not a YYYY-MM-DD date`);
  return { timezone: input.timezone, weekly, holidays, away_message: input.away_message ?? "" };
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/** One formatter per zone: building one costs far more than using it. */
function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone, weekday: "short", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
    });
    if (formatters.size < 1000) formatters.set(zone, formatter);
  }
  return formatter;
}

/** The wall clock in `zone` at `at`: weekday, calendar date and "HH:MM". */
export function localTime(zone: string, at: Date): { day: Weekday; date: string; time: string } {
  const parts = formatterOf(zone).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return {
    day: part("weekday").toLowerCase().slice(0, 3) as Weekday,
    date: `${part("year")}-${part("month")}-${part("day")}`,
    time: `${part("hour")}:${part("minute")}`,
  };
}

/** Within the schedule at `at` (intervals are [from, to): 09:00–18:00 is closed at 18:00). */
export function isOpenAt(hours: Pick<DbHours, "timezone" | "weekly" | "holidays">, at: Date): boolean {
  const local = localTime(hours.timezone, at);
  if (hours.holidays.includes(local.date)) return false;
  return (hours.weekly[local.day] ?? []).some(([from, to]) => local.time >= from && local.time < to);
}

/** Why: a schedule closed for longer than this (a long holiday) has no "next opening" worth showing. */
export const NEXT_OPENING_HORIZON_DAYS = 14;
const STEP_MS = 5 * 60_000;

/**
 * The first minute at or after `from` within the hours, or null within the horizon. Walks
 * the instants in 5-minute steps (wall-clock rules, so DST needs nothing special), then back
 * minute by minute to the opening itself.
 */
export function nextOpening(hours: Pick<DbHours, "timezone" | "weekly" | "holidays">, from: Date): Date | null {
  const start = Math.ceil(from.getTime() / 60_000) * 60_000;
  if (isOpenAt(hours, new Date(start))) return new Date(start);
  for (let t = start + STEP_MS; t <= start + NEXT_OPENING_HORIZON_DAYS * 86_400_000; t += STEP_MS) {
    if (!isOpenAt(hours, new Date(t))) continue;
    let first = t;
    while (first - 60_000 > t - STEP_MS && isOpenAt(hours, new Date(first - 60_000))) first -= 60_000;
    return new Date(first);
  }
  return null;
}

const ALWAYS = (): Hours => ({
  timezone: "UTC", weekly: Object.fromEntries(WEEKDAYS.map((d) => [d, []])) as unknown as Hours["weekly"], holidays: [], away_message: "",
  open_now: true, configured: false,
});

const toHours = (row: DbHours, now: Date): Hours => ({
  timezone: row.timezone,
  weekly: Object.fromEntries(WEEKDAYS.map((d) => [d, row.weekly[d] ?? []])) as Hours["weekly"],
  holidays: row.holidays,
  away_message: row.away_message,
  open_now: isOpenAt(row, now),
  configured: true,
});

type HoursDeps = { db: Db; now?: () => number };
const clock = (deps: HoursDeps) => new Date(deps.now ? deps.now() : Date.now());

export async function getHours(deps: HoursDeps, userId: string, botId: string): Promise<Hours> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const row = await findHours(deps.db, bot.id);
  return row ? toHours(row, clock(deps)) : ALWAYS();
}

export async function setHours(deps: HoursDeps & { bots: Pick<BotDirectory, "changed"> }, userId: string, botId: string, input: HoursInput): Promise<Hours> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const row = await upsertHours(deps.db, bot.id, normaliseHours(input));
  // Every process's directory remembers whether the bot sends an away message (asked after each visitor message).
  await deps.bots.changed(bot.id);
  return toHours(row, clock(deps));
}

/**
 * Whether the widget should say the team is away, and with what: only for a bot with hours
 * set, when it is outside them or no member is online.
 */
export async function awayState(
  deps: HoursDeps, botId: string,
): Promise<{ away?: boolean; away_message?: string | null; opens_at?: string | null }> {
  const row = await findHours(deps.db, botId);
  // A bot without hours says nothing about availability: its widget looks as it always did.
  if (!row) return {};
  const now = clock(deps);
  const closed = !isOpenAt(row, now);
  const away = closed || !(await anyMemberOnline(deps.db, botId));
  // When the team answers again: only known for closed hours (nobody online has no schedule).
  const opens = closed ? nextOpening(row, now) : null;
  return { away, away_message: away && row.away_message ? row.away_message : null, opens_at: opens?.toISOString() ?? null };
}
