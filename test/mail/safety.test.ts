// What must never happen with mail: an automatic answer to automatic mail (auto-replies,
// bounces, lists, machine senders), a bounce going unnoticed, a huge mail read into memory,
// a mailbox sending without limit, a password shown or logged.
import { expect, test } from "bun:test";
import { listRefusedMail } from "../../src/db/mail.ts";
import { MAX_MAIL_BYTES } from "../../src/core/mail.ts";
import { bounceMail, describeMail, detail, inboxOf, mailBot, mailFixture, mailsTo, rawMail, until, type MailBot } from "./support.ts";

const SEND_PER_HOUR = 3;
const fx = mailFixture({ sendPerHour: SEND_PER_HOUR });

async function firstConversation(bot: MailBot): Promise<any> {
  return until("a conversation", async () => (await inboxOf(fx, bot))[0]);
}

async function outgoing(conversationId: string, text: string): Promise<any> {
  return until(`"${text}" settled`, async () => {
    const m = (await detail(fx, conversationId)).messages.find((x: any) => x.text === text);
    return m && (m.delivery === "delivered" || m.delivery === "failed") ? m : undefined;
  });
}

const botSays = async (bot: MailBot, chatId: string, text: string) => {
  const res = await fx.client.post(`/api/bots/${bot.id}/send-message`, { chat_id: chatId, text }, bot.token);
  expect(res.status).toBe(200);
};

describeMail("mail safety", () => {
  const automatic: Array<[string, Record<string, string>, string?]> = [
    ["an auto-reply (Auto-Submitted)", { "Auto-Submitted": "auto-replied" }],
    ["bulk mail (Precedence)", { Precedence: "bulk" }],
    ["list mail (Precedence: list, List-Id)", { Precedence: "list", "List-Id": "<news.customer.example>" }],
    ["junk (Precedence)", { Precedence: "junk" }],
    ["mail from a no-reply sender", {}, "Shop Robot <no-reply@customer.example>"],
    ["mail from mailer-daemon that is not a report", {}, "MAILER-DAEMON@customer.example"],
  ];
  for (const [what, headers, from] of automatic) {
    test(`${what} gets no automatic answer; an operator may still answer`, async () => {
      const bot = await mailBot(fx);
      const sender = from ?? `robot-${crypto.randomUUID().slice(0, 8)}@customer.example`;
      const address = sender.match(/<([^>]+)>/)?.[1]?.toLowerCase() ?? sender.toLowerCase();
      await bot.deliver(rawMail({ from: sender, subject: "Out of office", text: "I am away until Monday.", headers }).raw);
      const conversation = await firstConversation(bot);
      const incoming = (await detail(fx, conversation.id)).messages[0];
      expect(typeof incoming.metadata.email.automatic).toBe("string");
      await botSays(bot, conversation.chat_id, "Thanks for your mail! (bot)");
      const bots = await outgoing(conversation.id, "Thanks for your mail! (bot)");
      expect(bots.delivery).toBe("failed");
      expect(bots.delivery_error).toContain("no automatic answer");
      await fx.client.post(`/api/inbox/${conversation.id}`, { text: "A person answering" }, fx.alice.token);
      expect((await outgoing(conversation.id, "A person answering")).delivery).toBe("delivered");
      expect(mailsTo(fx, address).map((m) => m.parsed.text?.trim())).toEqual(["A person answering"]);
    }, 30_000);
  }

  test("a person's mail does get the bot's answer, marked Auto-Submitted so robots do not answer it", async () => {
    const bot = await mailBot(fx);
    const address = `person-${crypto.randomUUID().slice(0, 8)}@customer.example`;
    await bot.deliver(rawMail({ from: `Pat <${address}>`, subject: "Question" }).raw);
    const conversation = await firstConversation(bot);
    await botSays(bot, conversation.chat_id, "The bot answers");
    expect((await outgoing(conversation.id, "The bot answers")).delivery).toBe("delivered");
    const [mail] = mailsTo(fx, address);
    expect(mail!.parsed.headers.get("auto-submitted")).toBe("auto-replied");
  }, 30_000);

  test("a bounce marks the outgoing mail failed with the reason, and is not an inbox message", async () => {
    const bot = await mailBot(fx);
    const address = `gone-${crypto.randomUUID().slice(0, 8)}@customer.example`;
    await bot.deliver(rawMail({ from: `Gone <${address}>`, subject: "hello" }).raw);
    const conversation = await firstConversation(bot);
    await fx.client.post(`/api/inbox/${conversation.id}`, { text: "Our answer" }, fx.alice.token);
    expect((await outgoing(conversation.id, "Our answer")).delivery).toBe("delivered");
    const sentId = mailsTo(fx, address)[0]!.parsed.messageId!.replace(/^<|>$/g, "");
    await bot.deliver(bounceMail(sentId, address));
    const failed = await until("the bounce noticed", async () => {
      const m = (await detail(fx, conversation.id)).messages.find((x: any) => x.text === "Our answer");
      return m.delivery === "failed" ? m : undefined;
    });
    expect(failed.delivery_error).toContain("550 5.1.1");
    // A later mail is read, so the bounce was passed, not stuck on.
    await bot.deliver(rawMail({ from: `Other <other-${address}>`, subject: "next" }).raw);
    await until("the next mail", async () => (await inboxOf(fx, bot)).length === 2);
    expect((await detail(fx, conversation.id)).messages).toHaveLength(2);
  }, 30_000);

  test(`a mail over ${MAX_MAIL_BYTES / 1024 / 1024} MB is refused and recorded; the next one is read`, async () => {
    const bot = await mailBot(fx);
    const big = rawMail({ subject: "Huge attachment", text: "x".repeat(76).concat("\r\n").repeat(Math.ceil((MAX_MAIL_BYTES + 1024) / 78)) });
    await bot.deliver(big.raw);
    await bot.deliver(rawMail({ subject: "Small one", text: "small" }).raw);
    const conversation = await firstConversation(bot);
    expect((await detail(fx, conversation.id)).messages.map((m: any) => m.text)).toEqual(["small"]);
    const refused = await listRefusedMail(fx.client.platform.db, bot.id, 10);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ subject: "Huge attachment", reason: expect.stringContaining("larger than 25 MB") });
    expect(refused[0]!.size_bytes).toBeGreaterThan(MAX_MAIL_BYTES);
  }, 60_000);

  test(`a mailbox sends at most ${SEND_PER_HOUR} mails an hour; the rest wait`, async () => {
    const bot = await mailBot(fx);
    const address = `busy-${crypto.randomUUID().slice(0, 8)}@customer.example`;
    await bot.deliver(rawMail({ from: address, subject: "many" }).raw);
    const conversation = await firstConversation(bot);
    for (let i = 1; i <= SEND_PER_HOUR + 2; i++) await fx.client.post(`/api/inbox/${conversation.id}`, { text: `reply ${i}` }, fx.alice.token);
    await until("the allowed mails", () => mailsTo(fx, address).length === SEND_PER_HOUR);
    await Bun.sleep(1000);
    expect(mailsTo(fx, address)).toHaveLength(SEND_PER_HOUR);
    const states = (await detail(fx, conversation.id)).messages.filter((m: any) => m.direction === "out").map((m: any) => m.delivery);
    expect(states).toEqual([...Array(SEND_PER_HOUR).fill("delivered"), "pending", "pending"]);
  }, 30_000);
});
