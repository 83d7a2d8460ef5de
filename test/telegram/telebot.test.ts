// telebot 1.4, unchanged but for its API root, launches with its default options and
// answers /start. Its launch calls setWebhook without a url to
// clear any webhook, which Telegram (and now the facade) reads as "delete".
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import TeleBot from "telebot";
import { MODE } from "../support/harness.ts";
import { botTexts, exchange, newVisitor, pendingNative, startFacade, waitForHistory, type Facade } from "./support.ts";

/** A whole conversation with a polling bot on a busy 2-core machine. */
const SLOW_MS = 60_000;
setDefaultTimeout(SLOW_MS);

let facade: Facade;
beforeAll(async () => {
  facade = await startFacade();
});
afterAll(() => facade.stop(), SLOW_MS);

describe(`telebot 1.4 long polling (${MODE})`, () => {
  test("launches with default options, answers /start and text, with HTML formatting", async () => {
    const created = await facade.newBot("Telebot Echo");
    const bot = new TeleBot({ token: created.token });
    // The one change a user makes: the API root (telebot builds it from the token).
    bot.api = `${facade.url}/bot${created.token}`;
    const errors: unknown[] = [];
    bot.on("error", (e: unknown) => errors.push(e));
    bot.on("/start", (msg) => msg.reply.text(`<b>Welcome</b>, ${msg.from.first_name}!`, { parseMode: "html" }));
    bot.on("text", (msg) => (msg.text.startsWith("/") ? undefined : msg.reply.text(`echo: ${msg.text}`)));
    bot.start();
    try {
      const visitor = newVisitor("Tess");
      await exchange(facade, created, visitor, "/start", "Welcome, Tess!");
      const history = await exchange(facade, created, visitor, "hello", "echo: hello");
      expect(botTexts(history)).toEqual(["Welcome, Tess!", "echo: hello"]);
      const welcome = (await waitForHistory(facade, created, visitor, () => true)).find((m) => m.text === "Welcome, Tess!") as any;
      expect(welcome.entities).toEqual([{ type: "bold", offset: 0, length: 7 }]);
      expect(errors).toEqual([]);
    } finally {
      bot.stop("test over");
    }
    // telebot confirms each batch with its next getUpdates; once it has polled again nothing is pending.
    for (let i = 0; i < 100 && (await pendingNative(facade, created)).length; i++) await Bun.sleep(100);
    expect(await pendingNative(facade, created)).toEqual([]);
  });
});
