// The cabinet's API client: the user token lives in localStorage; a 401 ends the session.
import type {
  Assignee as AssignedMember, Contact, ContactConversation, Conversation, Message, Status,
} from "../../src/core/records.ts";

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

export const session = {
  get token(): string | null {
    return localStorage.getItem(TOKEN_KEY);
  },
  get email(): string {
    return localStorage.getItem(EMAIL_KEY) ?? "";
  },
  start(token: string, email: string) {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(EMAIL_KEY, email);
  },
  end() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(EMAIL_KEY);
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

export async function api<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
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
  const body = await res.json().catch(() => null);
  if (res.status === 401 && !options.token && session.token) {
    session.end();
    onExpired();
  }
  if (!res.ok || !body?.ok) throw new ApiError(res.status, body?.error ?? body?.description ?? `Error ${res.status}`);
  return body.result as T;
}

export const get = <T = any>(path: string, token?: string) => api<T>("GET", path, { token });
export const post = <T = any>(path: string, body?: unknown, token?: string) => api<T>("POST", path, { body, token });
export const patch = <T = any>(path: string, body: unknown) => api<T>("PATCH", path, { body });
export const del = <T = any>(path: string) => api<T>("DELETE", path);

export interface Bot {
  id: string;
  number: number;
  name: string;
  username: string;
  description: string | null;
  webhook_url: string | null;
  /** Absent for operators: only the owner sees the token, channels and members. */
  token?: string | null;
  role?: Role;
  widget_key: string;
  integration_key: string;
  created_at: string;
}

export interface Channel {
  channel_type: string;
  is_active: boolean;
  config: Record<string, unknown>;
  updated_at: string | null;
}

// The server's own record types (no I/O in src/core, so the bundler only inlines the list).
export type { Contact, Conversation, Message, Status } from "../../src/core/records.ts";
export { STATUSES } from "../../src/core/records.ts";

export type Role = "owner" | "operator";
export interface User {
  id: string;
  email: string;
}
export interface Member {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
}
export interface Invite {
  id: string;
  email: string;
  role: Role;
  created_at?: string;
  expires_at: string;
  /** Only in the answer that creates the invite: the code is stored hashed. */
  code?: string;
  invite_url?: string;
}
export interface CannedReply {
  id: string;
  shortcut: string;
  text: string;
}
export type Assignee = AssignedMember | null;

/** A list row: the record plus this user's view of it (assignment, unread). */
export interface InboxConversation extends Conversation {
  assignee?: Assignee;
  unread_count?: number;
}

export interface ConversationDetail extends InboxConversation {
  messages: Message[];
  contacts: Contact[];
  contact_conversations?: ContactConversation[];
  page?: { url: string | null; title: string | null } | null;
}

export type TabCounts = Record<Status | "all", number>;
export interface InboxCounts {
  status: TabCounts;
  unread: TabCounts;
}

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
