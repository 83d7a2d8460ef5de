// The part of node-telegram-bot-api 0.x (installed as node-telegram-bot-api-classic) the
// tests use; the package ships no types and @types/node-telegram-bot-api is not installed.
declare module "node-telegram-bot-api-classic" {
  namespace TelegramBot {
    interface User {
      id: number;
      is_bot: boolean;
      first_name: string;
      username?: string;
    }
    interface Chat {
      id: number;
      type: string;
      first_name?: string;
    }
    interface Message {
      message_id: number;
      from?: User;
      chat: Chat;
      date: number;
      text?: string;
      caption?: string;
      caption_entities?: { type: string; offset: number; length: number }[];
      photo?: { file_id: string; file_unique_id: string; width: number; height: number; file_size?: number }[];
      document?: { file_id: string; file_unique_id: string; file_name?: string; mime_type?: string; file_size?: number };
      media_group_id?: string;
    }
    interface File {
      file_id: string;
      file_unique_id: string;
      file_size?: number;
      file_path?: string;
    }
    interface Options {
      polling?: boolean | { autoStart?: boolean; interval?: number; params?: { timeout?: number } };
      baseApiUrl?: string;
    }
  }
  class TelegramBot {
    constructor(token: string, options?: TelegramBot.Options);
    on(event: "message", listener: (message: TelegramBot.Message) => void): this;
    on(event: "polling_error", listener: (error: Error) => void): this;
    onText(pattern: RegExp, listener: (message: TelegramBot.Message, match: RegExpExecArray | null) => void): void;
    getMe(): Promise<TelegramBot.User>;
    sendMessage(chatId: number | string, text: string, options?: Record<string, unknown>): Promise<TelegramBot.Message>;
    editMessageText(text: string, options: { chat_id: number | string; message_id: number }): Promise<TelegramBot.Message | boolean>;
    deleteMessage(chatId: number | string, messageId: number): Promise<boolean>;
    sendPhoto(chatId: number | string, photo: string | Buffer, options?: Record<string, unknown>, fileOptions?: { filename?: string; contentType?: string }): Promise<TelegramBot.Message>;
    sendDocument(chatId: number | string, doc: string | Buffer, options?: Record<string, unknown>, fileOptions?: { filename?: string; contentType?: string }): Promise<TelegramBot.Message>;
    sendMediaGroup(chatId: number | string, media: { type: string; media: string | Buffer; caption?: string; parse_mode?: string; fileOptions?: { filename?: string } }[]): Promise<TelegramBot.Message[]>;
    getFile(fileId: string): Promise<TelegramBot.File>;
    getFileLink(fileId: string): Promise<string>;
    startPolling(): Promise<void>;
    stopPolling(options?: { cancel?: boolean; reason?: string }): Promise<void>;
  }
  export = TelegramBot;
}
