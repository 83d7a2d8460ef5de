// The facade's profile methods (setMyName, setMyDescription, setMyShortDescription,
// setChatMenuButton and their getters) and getChat. Only the default language is stored:
// a language_code is refused on set and reads the default on get.
import { getProfile, setMenuButton, setProfileText, type PROFILE_TEXT_LIMITS } from "../domain/profile.ts";
import { tgBadRequest } from "./errors.ts";
import { findChat } from "./lookup.ts";
import type { Method, Params } from "./model.ts";
import { optionalObject, optionalString, requireChat } from "./params.ts";
import { chatOfRow } from "./shapes.ts";

function defaultLanguageOnly(params: Params): void {
  if (optionalString(params, "language_code")) throw tgBadRequest("only the default language (no language_code) is supported");
}

const setText = (field: keyof typeof PROFILE_TEXT_LIMITS): Method => async (deps, bot, params) => {
  defaultLanguageOnly(params);
  return { result: await setProfileText(deps, bot, field, optionalString(params, field) ?? "") };
};

const getText = (field: keyof typeof PROFILE_TEXT_LIMITS): Method => async (deps, bot) => {
  const profile = await getProfile(deps, bot);
  return { result: { [field]: profile[field] } };
};

export const PROFILE_METHODS: Record<string, Method> = {
  setmyname: setText("name"),
  getmyname: getText("name"),
  setmydescription: setText("description"),
  getmydescription: getText("description"),
  setmyshortdescription: setText("short_description"),
  getmyshortdescription: getText("short_description"),
  // One menu button per bot: a chat_id (Telegram's per-chat button) is accepted and the bot-wide one is used.
  setchatmenubutton: async (deps, bot, params) => ({ result: await setMenuButton(deps, bot, optionalObject(params, "menu_button", "MenuButton")) }),
  getchatmenubutton: async (deps, bot) => ({ result: (await getProfile(deps, bot)).menu_button }),
  getchat: async (deps, bot, params) => {
    const chat = chatOfRow(await findChat(deps, bot, requireChat(params)));
    // ChatFullInfo's required fields for a private chat with no custom colours or reactions.
    return { result: { ...chat, accent_color_id: 0, max_reaction_count: 0 } };
  },
};
