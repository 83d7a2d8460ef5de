import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "elysia";
import { badRequest } from "../../core/errors.ts";
import type { Config } from "../../config.ts";
import { checkWebhookUrl } from "../../domain/webhooks.ts";
import type { Queryable } from "../../db/driver.ts";
import { listChannels, upsertChannel, type DbChannel } from "../../db/channels.ts";
import { CALLBACK_CHANNELS, CallbackConfig, CHANNEL_TYPES, WidgetConfig, type Channel, type ChannelType } from "./model.ts";

const CONFIG_SCHEMAS: Partial<Record<ChannelType, TSchema>> = {
  widget: WidgetConfig,
  ...Object.fromEntries(CALLBACK_CHANNELS.map((type) => [type, CallbackConfig])),
};

/** Rejects a config whose known keys have the wrong shape, naming the key. */
export function validateChannelConfig(type: ChannelType, config: Record<string, unknown>): void {
  const schema = CONFIG_SCHEMAS[type];
  if (!schema) return;
  const first = Value.Errors(schema, config).First();
  if (first) {
    const key = first.path.replace(/^\//, "").replace(/\//g, ".");
    throw badRequest(`config.${key}: ${first.message}`);
  }
}

const toChannel = (row: DbChannel): Channel => ({
  channel_type: row.channel_type as ChannelType,
  is_active: row.is_active,
  config: row.config,
  updated_at: row.updated_at.toISOString(),
});

/** All eight types, configured or not: a never-configured channel is active with `{}`. */
export async function channelsOfBot(db: Queryable, botId: string): Promise<Channel[]> {
  const stored = new Map((await listChannels(db, botId)).map((row) => [row.channel_type, row]));
  return CHANNEL_TYPES.map((type) => {
    const row = stored.get(type);
    return row ? toChannel(row) : { channel_type: type, is_active: true, config: {}, updated_at: null };
  });
}

export async function updateChannel(
  db: Queryable, policy: Pick<Config, "allowPrivateWebhooks">, botId: string, type: ChannelType, isActive: boolean | undefined, config: Record<string, unknown> | undefined,
): Promise<Channel> {
  if (config !== undefined) {
    validateChannelConfig(type, config);
    if (typeof config.callback_url === "string") await checkWebhookUrl(policy, config.callback_url, "config.callback_url");
  }
  return toChannel(await upsertChannel(db, botId, type, isActive ?? null, config ?? null));
}
