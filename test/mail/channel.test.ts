// The e-mail channel end to end against real servers: a mail put into a Dovecot mailbox
// reaches the inbox and the bot, the operator's reply leaves through SMTP threaded under it,
// and the customer's answer to that reply joins the same conversation.
import { expect, test } from "bun:test";
import { startMailWorker } from "../../src/workers/mail.ts";
import { describeMail, detail, FAST_MAIL, inboxOf, mailBot, mailFixture, rawMail, until } from "./support.ts";

const fx = mailFixture();

describeMail("e-mail channel", () => {
  test("mail in, bot update, operator reply out with threading headers, customer answer in the same conversation", async () => {
    const bot = await mailBot(fx);
    const first = rawMail({
      from: "Jane Doe <jane@customer.example>",
      subject: "Order 42 is late",
      text: "Where is my order?\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, Shop <support@shop.example> wrote:\r\n> Your order 42 has shipped.\r\n> Regards\r\n",
    });
    const sentAt = Date.now();
    await bot.deliver(first.raw);
    const [conversation] = await until("the mail in the inbox", async () => {
      const list = await inboxOf(fx, bot);
      return list.length > 0 ? list : undefined;
    }, 5000);
    const elapsed = Date.now() - sentAt;
    expect(elapsed).toBeLessThan(5000);
    console.log(`mail to inbox: ${elapsed} ms`);
    expect(conversation.channel).toBe("email");
    expect(conversation.contact).toMatchObject({ name: "Jane Doe", email: "jane@customer.example" });

    const shown = await detail(fx, conversation.id);
    const incoming = shown.messages.find((m: any) => m.direction === "in");
    // The quote is gone from the text, kept in metadata.
    expect(incoming.text).toBe("Where is my order?");
    expect(incoming.metadata.email).toMatchObject({
      message_id: first.messageId,
      subject: "Order 42 is late",
      from: { address: "jane@customer.example", name: "Jane Doe" },
      to: [{ address: "support@shop.example", name: "Shop Support" }],
      cc: [],
      in_reply_to: null,
      references: [],
    });
    expect(incoming.metadata.email.full_text).toContain("> Your order 42 has shipped.");

    const polled = await fx.client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(polled.body.result.map((u: any) => u.message?.text)).toEqual(["Where is my order?"]);

    const reply = await fx.client.post(`/api/inbox/${conversation.id}`, { text: "It ships today.\n\nSorry for the wait." }, fx.alice.token);
    expect(reply.status).toBe(200);
    // Queued with the message itself: the answer already says it is on its way.
    expect(reply.body.result.delivery).toBe("pending");
    const [sent] = await fx.smtp.waitFor(1);
    expect(sent!.to).toEqual(["jane@customer.example"]);
    expect(sent!.parsed.subject).toBe("Re: Order 42 is late");
    expect(sent!.parsed.inReplyTo).toBe(`<${first.messageId}>`);
    expect([sent!.parsed.references].flat()).toEqual([`<${first.messageId}>`]);
    expect(sent!.parsed.from?.value[0]).toMatchObject({ address: "support@shop.example", name: "Shop Support" });
    expect(sent!.parsed.text?.trim()).toBe("It ships today.\n\nSorry for the wait.");
    expect(sent!.parsed.html).toContain("<p>It ships today.</p>");
    const delivered = await until("the reply marked delivered", async () => {
      const m = (await detail(fx, conversation.id)).messages.find((x: any) => x.direction === "out");
      return m?.delivery === "delivered" ? m : undefined;
    });
    expect(delivered.delivery_error ?? null).toBeNull();

    // The customer answers the reply; the subject changed, the headers still thread it.
    const ourId = sent!.parsed.messageId!.replace(/^<|>$/g, "");
    const answer = rawMail({ subject: "Re: [shop] late order", text: "Great, thanks!", inReplyTo: ourId, references: [first.messageId, ourId] });
    await bot.deliver(answer.raw);
    const thread = await until("the answer in the same conversation", async () => {
      const d = await detail(fx, conversation.id);
      return d.messages.filter((m: any) => m.direction === "in").length === 2 ? d : undefined;
    });
    expect(thread.messages.map((m: any) => m.text)).toEqual(["Where is my order?", "It ships today.\n\nSorry for the wait.", "Great, thanks!"]);
    expect(await inboxOf(fx, bot)).toHaveLength(1);
  }, 30_000);

  test("attachments are stored as the message's files and listed in metadata.email", async () => {
    const bot = await mailBot(fx);
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
    const raw = [
      "From: Jane Doe <jane-files@customer.example>",
      "To: support@shop.example",
      "Subject: The invoice",
      `Message-ID: <${crypto.randomUUID()}@customer.example>`,
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="b1"',
      "",
      "--b1",
      "Content-Type: text/plain; charset=utf-8",
      "",
      "Invoice attached.",
      "--b1",
      'Content-Type: application/pdf; name="invoice.pdf"',
      'Content-Disposition: attachment; filename="invoice.pdf"',
      "Content-Transfer-Encoding: base64",
      "",
      pdf.toString("base64"),
      "--b1--",
      "",
    ].join("\r\n");
    await bot.deliver(raw);
    const [conversation] = await until("the mail", async () => {
      const l = await inboxOf(fx, bot);
      return l.length ? l : undefined;
    });
    const message = (await detail(fx, conversation.id)).messages[0];
    expect(message.text).toBe("Invoice attached.");
    expect(message.attachments).toHaveLength(1);
    expect(message.attachments[0]).toMatchObject({ name: "invoice.pdf", mime_type: "application/pdf", size: pdf.length });
    expect(message.metadata.email.attachments).toEqual([
      { filename: "invoice.pdf", content_type: "application/pdf", size: pdf.length, file_id: message.attachments[0].file_id },
    ]);
  }, 30_000);

  test("a restart from a stale cursor or under a new UIDVALIDITY reads the mail again but stores none twice", async () => {
    const bot = await mailBot(fx);
    for (let i = 1; i <= 3; i++) await bot.deliver(rawMail({ from: `C${i} <c${i}@customer.example>`, subject: `Q${i}`, text: `q${i}` }).raw);
    const count = async () => (await inboxOf(fx, bot)).reduce((n: number, c: any) => n + c.message_count, 0);
    await until("three mails", async () => (await count()) === 3);
    const db = fx.client.platform.db;
    for (const stale of [`update mail_cursors set next_uid = 1 where bot_id = $1`, `update mail_cursors set uid_validity = '1', next_uid = 2 where bot_id = $1`]) {
      // As a crash after storing and before moving the cursor; then as a renumbered folder.
      await fx.worker.stop();
      await db.query(stale, [bot.id]);
      fx.worker = await startMailWorker(fx.client.services, { ...FAST_MAIL, accept: (id) => fx.mine.has(id) });
      await until("the mailbox read again", async () => {
        const [row] = await db.query<{ next_uid: number; uid_validity: string }>(`select next_uid, uid_validity from mail_cursors where bot_id = $1`, [bot.id]);
        return row!.next_uid === 4 && row!.uid_validity !== "1";
      });
      expect(await count()).toBe(3);
    }
    await bot.deliver(rawMail({ subject: "after", text: "a fourth" }).raw);
    await until("the fourth mail", async () => (await count()) === 4);
  }, 30_000);

  test("a mail without threading headers joins the sender's conversation with the same subject", async () => {
    const bot = await mailBot(fx);
    await bot.deliver(rawMail({ from: "Bob <bob@customer.example>", subject: "Invoice", text: "first" }).raw);
    await bot.deliver(rawMail({ from: "Bob <bob@customer.example>", subject: "RE: Fwd: invoice", text: "second" }).raw);
    await bot.deliver(rawMail({ from: "Bob <bob@customer.example>", subject: "Another question", text: "third" }).raw);
    const list = await until("three mails in two conversations", async () => {
      const l = await inboxOf(fx, bot);
      const total = l.reduce((n: number, c: any) => n + c.message_count, 0);
      return total === 3 ? l : undefined;
    });
    expect(list.map((c: any) => c.message_count).sort()).toEqual([1, 2]);
  }, 30_000);
});
