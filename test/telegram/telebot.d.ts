// The part of telebot 1.4 the tests use; the package ships no types.
declare module "telebot" {
  interface TeleBotMessage {
    message_id: number;
    text: string;
    from: { id: number; first_name: string };
    chat: { id: number };
    reply: { text(text: string, options?: { parseMode?: string }): Promise<unknown> };
  }
  export default class TeleBot {
    constructor(config: { token: string; polling?: Record<string, unknown> });
    /** The API root the bot calls, `https://api.telegram.org/bot<token>` by default. */
    api: string;
    on(event: string, handler: (msg: TeleBotMessage & Record<string, unknown>) => unknown): void;
    start(): void;
    stop(message?: string): void;
  }
}
