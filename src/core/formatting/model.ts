import type { MessageEntity } from "../updates.ts";

/** Markup that cannot be read; the message is Telegram's sentence after "can't parse entities: ". */
export class ParseError extends Error {}

export interface Parsed {
  text: string;
  entities: MessageEntity[];
}
