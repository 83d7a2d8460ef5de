// The Update and Message shapes a bot's backend sees (DESIGN §5); db/view.ts builds them
// from stored rows.

export interface MessageEntity {
  type: "bot_command";
  offset: number;
  length: number;
}

export interface RuntimeSender {
  id: string;
  first_name: string | null;
  last_name: string | null;
  is_bot?: boolean;
  username?: string;
}

/** As the native API writes it: message_id is a string (spec 2.5); the facade converts. */
export interface RuntimeMessage {
  message_id: string;
  date: number;
  chat: { id: string; type: "private"; channel: string };
  from: RuntimeSender;
  text: string;
  entities?: MessageEntity[];
  metadata?: Record<string, unknown>;
  form?: Record<string, unknown>;
  reply_markup?: Record<string, unknown>;
  edit_date?: number;
}

/** The update kinds, in the order a payload is searched for its message. */
export const UPDATE_KINDS = ["message", "edited_message", "operator_message"] as const;
export type UpdateKind = (typeof UPDATE_KINDS)[number];

/** A leading /command (optionally /command@botname) is marked, as Telegram does. */
const COMMAND = /^\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{1,64})?/;

export function commandEntities(text: string): MessageEntity[] | undefined {
  const match = COMMAND.exec(text);
  return match ? [{ type: "bot_command", offset: 0, length: match[0].length }] : undefined;
}

export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);
