// Event webhooks (owner only): URLs that follow a bot's conversations, messages and contacts,
// each with its own signing secret, shown once. The delivery worker (delivery/event_hooks.ts)
// queues and sends; this file manages the hooks and their delivery log.
import { randomBytes } from "node:crypto";
import { badRequest, conflict, notFound } from "../core/errors.ts";
import { EVENT_WEBHOOK_EVENTS, MAX_EVENT_WEBHOOKS_PER_BOT, type EventWebhookEvent } from "../core/integrations.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/driver.ts";
import {
  countEventWebhooks, deleteEventWebhook, findEventWebhook, insertEventWebhook, listEventDeliveries, listEventWebhooks,
  requeueEventDelivery, type DbEventDelivery, type DbEventWebhook,
} from "../db/event_webhooks.ts";
import type { SecretBox } from "../secrets.ts";
import type { EventBus } from "../bus/bus.ts";
import { requireMember } from "./members.ts";
import { checkWebhookUrl } from "./webhooks.ts";
import { eventHooksChangedSubject } from "../core/subjects.ts";

export interface EventWebhookDeps {
  db: Db;
  bus: EventBus;
  config: Pick<Config, "allowPrivateWebhooks">;
  secretBox: SecretBox;
}

export interface EventWebhook {
  id: string;
  url: string;
  events: EventWebhookEvent[];
  created_at: string;
}

export interface EventDelivery {
  id: string;
  event: EventWebhookEvent;
  event_id: string;
  state: DbEventDelivery["state"];
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  finished_at: string | null;
}

const toHook = (row: DbEventWebhook): EventWebhook => ({
  id: row.id, url: row.url, events: row.events as EventWebhookEvent[], created_at: row.created_at.toISOString(),
});

const toDelivery = (row: DbEventDelivery): EventDelivery => ({
  id: row.id,
  event: row.event as EventWebhookEvent,
  event_id: (JSON.parse(row.body) as { id: string }).id,
  state: row.state,
  attempts: row.attempts,
  response_code: row.last_status,
  last_error: row.last_error,
  created_at: row.created_at.toISOString(),
  last_attempt_at: row.last_attempt_at?.toISOString() ?? null,
  next_attempt_at: row.state === "pending" ? row.next_attempt_at.toISOString() : null,
  finished_at: row.finished_at?.toISOString() ?? null,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function ownedHook(deps: EventWebhookDeps, userId: string, botId: string, hookId: string): Promise<DbEventWebhook> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const hook = UUID.test(hookId) ? await findEventWebhook(deps.db, bot.id, hookId) : undefined;
  if (!hook) throw notFound("event webhook");
  return hook;
}

export async function createEventWebhook(
  deps: EventWebhookDeps, userId: string, botId: string, input: { url: string; events: string[] },
): Promise<EventWebhook & { secret: string }> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const events = [...new Set(input.events)];
  if (events.length === 0) throw badRequest("events: name at least one event");
  const unknown = events.filter((e) => !(EVENT_WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length) throw badRequest(`events: unknown ${unknown.join(", ")}; known: ${EVENT_WEBHOOK_EVENTS.join(", ")}`);
  await checkWebhookUrl(deps.config, input.url);
  if ((await countEventWebhooks(deps.db, bot.id)) >= MAX_EVENT_WEBHOOKS_PER_BOT) {
    throw conflict(`a bot has at most ${MAX_EVENT_WEBHOOKS_PER_BOT} event webhooks`);
  }
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  const row = await insertEventWebhook(deps.db, bot.id, input.url, events, deps.secretBox.seal(secret));
  await deps.bus.publish(eventHooksChangedSubject(bot.id), {}).catch(() => undefined);
  return { ...toHook(row), secret };
}

export async function listBotEventWebhooks(deps: EventWebhookDeps, userId: string, botId: string): Promise<EventWebhook[]> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  return (await listEventWebhooks(deps.db, bot.id)).map(toHook);
}

export async function removeEventWebhook(deps: EventWebhookDeps, userId: string, botId: string, hookId: string): Promise<true> {
  const hook = await ownedHook(deps, userId, botId, hookId);
  await deleteEventWebhook(deps.db, hook.bot_id, hook.id);
  await deps.bus.publish(eventHooksChangedSubject(hook.bot_id), {}).catch(() => undefined);
  return true;
}

export async function eventDeliveries(deps: EventWebhookDeps, userId: string, botId: string, hookId: string, limit: number): Promise<EventDelivery[]> {
  const hook = await ownedHook(deps, userId, botId, hookId);
  return (await listEventDeliveries(deps.db, hook.id, limit)).map(toDelivery);
}

/** Sends a delivery again (delivered or failed alike); the worker picks it up at once. */
export async function redeliverEvent(deps: EventWebhookDeps, userId: string, botId: string, hookId: string, deliveryId: string): Promise<EventDelivery> {
  const hook = await ownedHook(deps, userId, botId, hookId);
  const row = UUID.test(deliveryId) ? await requeueEventDelivery(deps.db, hook.id, deliveryId) : undefined;
  if (!row) throw notFound("delivery");
  await deps.bus.publish(eventHooksChangedSubject(hook.bot_id), {}).catch(() => undefined);
  return toDelivery(row);
}
