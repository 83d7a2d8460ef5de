// The cabinet's API client: the user token lives in localStorage; a 401 ends the session.
// Wire types come from the server's own schemas (type-only imports: nothing of the server
// is bundled), so a field renamed there fails the typecheck here instead of drifting.
import { signal } from "@preact/signals";
import type { Static } from "@sinclair/typebox";
import type { AuthResult, User } from "../../src/http/auth/model.ts";
import type { AcceptedInvite, AssignableMember, CannedReply, CreatedInvite, Invite, Member } from "../../src/http/bots/model.ts";
import type { Channel } from "../../src/http/channels/model.ts";
import type { ConversationDetail, InboxConversation, InboxCounts } from "../../src/http/inbox/model.ts";
import type { PushPublicKey, PushSubscription as StoredSubscription } from "../../src/http/push/model.ts";
import type { WebhookInfo } from "../../src/http/webhooks/model.ts";
import type { Contact } from "../../src/core/records.ts";

export type { Bot } from "../../src/http/bots/model.ts";
export type { AuthResult, CannedReply, Channel, ConversationDetail, InboxConversation, Invite, Member, User };
export type { Assignee, Contact, Conversation, Message, Status } from "../../src/core/records.ts";
export { STATUSES } from "../../src/core/records.ts";
export type AssignableMember = Static<typeof AssignableMember>;
export type CreatedInvite = Static<typeof CreatedInvite>;
export type AcceptedInvite = Static<typeof AcceptedInvite>;
export type InboxCounts = Static<typeof InboxCounts>;
export type PushPublicKey = Static<typeof PushPublicKey>;
export type StoredPushSubscription = Static<typeof StoredSubscription>;
export type WebhookInfo = Static<typeof WebhookInfo>;

const TOKEN_KEY = "botinbox:token";
const EMAIL_KEY = "botinbox:email";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Bumped on every log in and out, so the views that depend on the session render again. */
const sessionChanges = signal(0);

export const session = {
  /** Read inside a view to render again when the session starts or ends. */
  get changes(): number {
    return sessionChanges.value;
  },
  get token(): string | null {
    return localStorage.getItem(TOKEN_KEY);
  },
  get email(): string {
    return localStorage.getItem(EMAIL_KEY) ?? "";
  },
  start(token: string, email: string) {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(EMAIL_KEY, email);
    sessionChanges.value++;
  },
  end() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(EMAIL_KEY);
    sessionChanges.value++;
  },
};

/** Called when the server no longer accepts the token (expired, or the user logged out elsewhere). */
let onExpired: () => void = () => {};
export const whenSessionExpires = (fn: () => void) => (onExpired = fn);

export interface RequestOptions {
  body?: unknown;
  /** Another token than the user's (the bot token for runtime calls). */
  token?: string;
}

export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const token = options.token ?? session.token;
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  } catch {
    throw new ApiError(0, "The server cannot be reached. Check your connection.");
  }
  const body = (await res.json().catch(() => null)) as { ok?: boolean; result?: T; error?: string; description?: string } | null;
  if (res.status === 401 && !options.token && session.token) {
    session.end();
    onExpired();
  }
  if (!res.ok || !body?.ok) throw new ApiError(res.status, body?.error ?? body?.description ?? `Error ${res.status}`);
  return body.result as T;
}

export const get = <T>(path: string, token?: string) => api<T>("GET", path, { token });
export const post = <T>(path: string, body?: unknown, token?: string) => api<T>("POST", path, { body, token });
export const patch = <T>(path: string, body: unknown) => api<T>("PATCH", path, { body });
export const del = <T = unknown>(path: string) => api<T>("DELETE", path);

let me: { token: string | null; user: Promise<User> } | undefined;
/** Who is logged in: asked once per session token. */
export function currentUser(): Promise<User> {
  if (me?.token !== session.token) {
    const user = get<User>("/api/auth/me");
    me = { token: session.token, user };
    user.catch(() => (me = undefined));
  }
  return me!.user;
}

/** The best name a conversation's contact has; anonymous visitors are numbered. */
export const contactName = (c: Contact | null | undefined, fallback: string) =>
  c?.name || [c?.first_name, c?.last_name].filter(Boolean).join(" ") || c?.email || c?.phone || (c ? `Visitor #${c.number}` : fallback);
