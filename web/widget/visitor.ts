// Who the visitor is to the server: an anonymous visitor's random chat id kept in this
// browser, or a verified user the site vouches for (data-user-id + data-user-hash, or
// BotInbox.setUser), whose one chat the server names after checking the hash.
import { type Api, ApiError } from "./api.ts";

/** What a site passes for its logged-in user; hash = hex HMAC-SHA256(identity secret, id) from its server. */
export interface SiteUser {
  id: string;
  hash: string;
  name?: string;
  email?: string;
}

/**
 * The chat id is the visitor's only key to their history, so it must not be guessable:
 * randomUUID is missing on plain-http pages, getRandomValues never is (128 random bits).
 */
export const randomId = () =>
  crypto.randomUUID?.() ?? Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

/** localStorage can be blocked (privacy modes, sandboxed frames): then the chat lasts the page view. */
export function storedChatId(key: string, fresh = false): string {
  const name = `botinbox:chat:${key}`;
  try {
    const known = localStorage.getItem(name);
    if (known && !fresh) return known;
    const id = `w_${randomId()}`;
    localStorage.setItem(name, id);
    return id;
  } catch {
    return `w_${randomId()}`;
  }
}

/**
 * The chat to open for `user`: theirs once the server accepts the hash. A refused hash is the
 * site owner's to fix: their console says how, and the visitor chats anonymously meanwhile.
 */
export async function chatOf(api: Api, key: string, user: SiteUser | null | undefined): Promise<string> {
  api.who = undefined;
  if (!user?.id || !user.hash) return storedChatId(key);
  api.who = user;
  try {
    return (await api.identify()).chat_id;
  } catch (err) {
    api.who = undefined;
    if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
      console.error(`botinbox widget: the user hash was refused (${err.message}). data-user-hash (or setUser's hash) must be hex HMAC-SHA256(the bot's identity secret, the user id), computed on your server. The visitor chats anonymously until then.`);
    }
    return storedChatId(key);
  }
}
