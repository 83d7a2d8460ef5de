// The bot's profile texts and menu button (Telegram's setMyName, setMyDescription,
// setMyShortDescription, setChatMenuButton): stored as sent, answered back, and shown by
// nothing else yet. Unset fields fall back to the bot's own name and description.
import type { DbBot } from "../db/bots.ts";
import type { Db } from "../db/driver.ts";
import { findBotProfile, setBotProfileField, type ProfileField } from "../db/profiles.ts";
import { badRequest } from "../core/errors.ts";

/** Telegram's limits for these texts. */
export const PROFILE_TEXT_LIMITS: Record<Exclude<ProfileField, "menu_button">, number> = { name: 64, description: 512, short_description: 120 };
const MENU_BUTTON_TYPES = ["default", "commands", "web_app"];

export interface BotProfile {
  name: string;
  description: string;
  short_description: string;
  menu_button: Record<string, unknown>;
}

export async function getProfile(deps: { db: Db }, bot: DbBot): Promise<BotProfile> {
  const row = await findBotProfile(deps.db, bot.id);
  return {
    name: row?.name ?? bot.name,
    description: row?.description ?? bot.description ?? "",
    short_description: row?.short_description ?? "",
    menu_button: row?.menu_button ?? { type: "default" },
  };
}

/** An empty text clears the field (back to the default), as Telegram does. */
export async function setProfileText(deps: { db: Db }, bot: DbBot, field: keyof typeof PROFILE_TEXT_LIMITS, value: string): Promise<true> {
  const limit = PROFILE_TEXT_LIMITS[field];
  if (value.length > limit) throw badRequest(`${field} is too long: at most ${limit} characters`);
  await setBotProfileField(deps.db, bot.id, field, value === "" ? null : value);
  return true;
}

export async function setMenuButton(deps: { db: Db }, bot: DbBot, button: Record<string, unknown> | undefined): Promise<true> {
  if (button !== undefined && !MENU_BUTTON_TYPES.includes(button.type as string)) {
    throw badRequest(`menu_button.type must be one of ${MENU_BUTTON_TYPES.join(", ")}`);
  }
  if (button !== undefined && JSON.stringify(button).length > 2048) throw badRequest("menu_button is too large");
  await setBotProfileField(deps.db, bot.id, "menu_button", button?.type === "default" ? null : (button ?? null));
  return true;
}
