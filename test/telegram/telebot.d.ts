// The part of telebot 1.4 the tests use; the package ships no types.
declare module "telebot" {
  interface TeleBotMessage {
    message_id: number;
    text: string;
    from: { id: number; first_name: string };
    chat: { id: number };
    reply: { text(text: string, options?: { parseMode?: string }): Promise<unknown> };
    caption?: string;
    caption_entities?: { type: string; offset: number; length: number }[];
    photo?: { file_id: string; file_unique_id: string; width: number; height: number; file_size?: number }[];
    document?: { file_id: string; file_unique_id: string; file_name?: string; mime_type?: string; file_size?: number };
    media_group_id?: string;
  }
  interface TeleBotFile {
    file_id: string;
    file_path: string;
    /** fileLink + file_path: telebot's download address. */
    fileLink: string;
  }
  type FileOptions = { caption?: string; parseMode?: string; fileName?: string; serverDownload?: boolean };
  export default class TeleBot {
    constructor(config: { token: string; polling?: Record<string, unknown> });
    /** The API root the bot calls, `https://api.telegram.org/bot<token>` by default. */
    api: string;
    /** Where getFile's fileLink points, `https://api.telegram.org/file/bot<token>/` by default. */
    fileLink: string;
    sendPhoto(chatId: number, photo: string | Buffer, options?: FileOptions): Promise<TeleBotMessage>;
    sendDocument(chatId: number, doc: string | Buffer, options?: FileOptions): Promise<TeleBotMessage>;
    sendMediaGroup(chatId: number, media: { type: string; media: string; caption?: string; parse_mode?: string }[]): Promise<TeleBotMessage[]>;
    getFile(fileId: string): Promise<TeleBotFile>;
    on(event: string, handler: (msg: TeleBotMessage & Record<string, unknown>) => unknown): void;
    start(): void;
    stop(message?: string): void;
  }
}
