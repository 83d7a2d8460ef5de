// What every public request reads before it can be accepted (the bot it names, the state of
// its channels, whether it routes or sends away messages), kept in process memory. A change
// to a bot or its channels is announced on the bus and every process forgets that bot; a
// short lifetime heals a lost announcement (core NATS delivers at most once). Bot tokens are never looked up here: the runtime API
// checks a token against the database on every request, so a rotation holds at once.
import type { EventBus, Unsubscribe } from "../bus/bus.ts";
import { ALL_BOT_CHANGES, botChangedSubject, botOfSubject } from "../core/subjects.ts";
import { findBotById, findBotByWidgetKey, type DbBot } from "../db/bots.ts";
import { listChannels, type DbChannel } from "../db/channels.ts";
import type { Db } from "../db/driver.ts";
import { teamworkActive } from "../db/routing.ts";

/** Why: the longest a process may act on a bot's old state if the bus lost the change. */
export const DIRECTORY_TTL_MS = 30_000;
/** Why: bounds memory (a few KB per bot) on deployments with very many bots; a miss costs one query. */
export const DIRECTORY_MAX_BOTS = 10_000;

interface Entry {
  bot: DbBot;
  /** Loaded on first use. */
  channels?: Promise<Map<string, DbChannel>>;
  /** Whether it routes conversations or sends an away message; loaded on first use. */
  teamwork?: Promise<boolean>;
  at: number;
}

export interface BotDirectory {
  byId(botId: string): Promise<DbBot | undefined>;
  byWidgetKey(widgetKey: string): Promise<DbBot | undefined>;
  /** The bot's configured channels by type (a channel never configured is absent). */
  channel(botId: string, type: string): Promise<DbChannel | undefined>;
  /**
   * Whether the bot routes or sends an away message (db/routing.ts teamworkActive): asked after
   * every visitor message, so kept here rather than one query per message.
   */
  teamwork(botId: string): Promise<boolean>;
  /** Call after committing a change to the bot, its channels, routing or hours: every process forgets it. */
  changed(botId: string): Promise<void>;
  close(): void;
}

/** A fact of a cached bot, loaded on first use and shared; a failed load is not kept, so the next call tries again. */
async function loadedOnce<K extends "channels" | "teamwork">(entry: Entry, key: K, loadFact: () => NonNullable<Entry[K]>): Promise<Awaited<NonNullable<Entry[K]>>> {
  const pending = (entry[key] ??= loadFact()) as NonNullable<Entry[K]>;
  try {
    return await pending;
  } catch (err) {
    entry[key] = undefined as Entry[K];
    throw err;
  }
}

export function botDirectory(db: Db, bus: EventBus, now: () => number = Date.now): BotDirectory {
  const byId = new Map<string, Entry>();
  const idByWidgetKey = new Map<string, string>();
  /** Counts forgets: a row loaded while one happened may predate the change, so it is not kept. */
  let forgets = 0;

  const drop = (botId: string) => {
    const entry = byId.get(botId);
    if (!entry) return;
    byId.delete(botId);
    idByWidgetKey.delete(entry.bot.widget_key);
  };
  const forget = (botId: string) => {
    forgets++;
    drop(botId);
  };
  const fresh = (botId: string | undefined) => {
    const entry = botId === undefined ? undefined : byId.get(botId);
    if (entry && now() - entry.at < DIRECTORY_TTL_MS) return entry;
    if (entry) drop(entry.bot.id);
    return undefined;
  };
  const load = async (find: () => Promise<DbBot | undefined>): Promise<DbBot | undefined> => {
    const before = forgets;
    const bot = await find();
    if (!bot || forgets !== before) return bot;
    if (byId.size >= DIRECTORY_MAX_BOTS) drop(byId.keys().next().value!);
    byId.set(bot.id, { bot, at: now() });
    idByWidgetKey.set(bot.widget_key, bot.id);
    return bot;
  };
  const unsubscribe: Unsubscribe = bus.subscribe(ALL_BOT_CHANGES, (_data, subject) => forget(botOfSubject(subject)));

  return {
    async byId(botId) {
      return fresh(botId)?.bot ?? load(() => findBotById(db, botId));
    },
    async byWidgetKey(widgetKey) {
      return fresh(idByWidgetKey.get(widgetKey))?.bot ?? load(() => findBotByWidgetKey(db, widgetKey));
    },
    async channel(botId, type) {
      const entry = fresh(botId);
      if (!entry) return (await listChannels(db, botId)).find((c) => c.channel_type === type);
      return (await loadedOnce(entry, "channels", () => listChannels(db, botId).then((rows) => new Map(rows.map((c) => [c.channel_type, c]))))).get(type);
    },
    async teamwork(botId) {
      const entry = fresh(botId);
      return entry ? loadedOnce(entry, "teamwork", () => teamworkActive(db, botId)) : teamworkActive(db, botId);
    },
    async changed(botId) {
      forget(botId);
      await bus.publish(botChangedSubject(botId), {});
    },
    close: () => unsubscribe(),
  };
}
