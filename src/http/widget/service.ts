import { findBotByWidgetKey } from "../../db/bots.ts";
import { findChannel } from "../../db/channels.ts";
import { forbidden, notFound } from "../../core/errors.ts";
import type { Platform } from "../../platform.ts";
import { allowedOrigins, requireListedOrigin } from "../cors.ts";
import { DEFAULT_WIDGET_COLOR, type WidgetConfigResult } from "./model.ts";

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** What the widget shows, from the widget channel's config with sensible defaults. */
export async function widgetConfig(
  platform: Platform, widgetKey: string, origin: string | null = null,
): Promise<WidgetConfigResult> {
  // The Origin list is the widget channel's, which this reads anyway: checked here, after the
  // channel's own 404/403, rather than by the public-access macro.
  const { db } = platform;
  const bot = await findBotByWidgetKey(db, widgetKey);
  if (!bot) throw notFound("widget");
  const channel = await findChannel(db, bot.id, "widget");
  if (channel && !channel.is_active) throw forbidden("the widget channel is disabled for this bot");
  const config = channel?.config ?? {};
  requireListedOrigin(allowedOrigins(config), origin);
  return {
    bot_id: bot.id,
    title: str(config.title) ?? bot.name,
    subtitle: str(config.subtitle) ?? "",
    greeting: str(config.greeting) ?? null,
    color: str(config.color) ?? DEFAULT_WIDGET_COLOR,
    position: config.position === "left" ? "left" : "right",
    channel: "widget",
  };
}
