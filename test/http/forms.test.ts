import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let alice: TestUser;
let bot: TestBot;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
  bot = await createTestBot(client, alice, "Forms bot");
});

const submit = (body: Record<string, unknown>) =>
  client.post("/api/integrations/sitecms/forms-plugin", { integration_key: bot.integration_key, ...body });

describe("form plugin", () => {
  test("renders the form as text, keeps the raw submission and keys the chat by email", async () => {
    const email = `Lead-${crypto.randomUUID().slice(0, 6)}@Example.com`;
    const res = await submit({
      form_title: "Contact us", contact_email: email, contact_name: "Lee", page_url: "https://site.example/contact",
      fields: { message: "Call me", topics: ["sales", "support"], company: null },
    });
    expect(res.status).toBe(200);
    const detail = (await client.get(`/api/inbox/${res.body.result.conversation_id}`, alice.token)).body.result;
    expect(detail.channel).toBe("sitecms");
    const message = detail.messages[0];
    expect(message.text.split("\n")).toEqual([
      "Form: Contact us", "Name: Lee", `Email: ${email}`, "message: Call me", "topics: sales, support", "company: —",
      "Page: https://site.example/contact",
    ]);
    expect(message.metadata.form).toMatchObject({ form_title: "Contact us", fields: { topics: ["sales", "support"] } });
    expect(message.metadata.form.integration_key).toBeUndefined();
    expect(detail.contact).toMatchObject({ email, name: "Lee" });
    const again = await submit({ contact_email: email.toLowerCase(), fields: { message: "second" } });
    expect(again.body.result.conversation_id).toBe(res.body.result.conversation_id);
  });

  test("phone keys the chat when there is no email; otherwise one conversation per submission", async () => {
    const phone = `+44 20 ${Math.floor(Math.random() * 1e8)}`;
    const a = await submit({ contact_phone: phone });
    const b = await submit({ contact_phone: phone });
    expect(b.body.result.conversation_id).toBe(a.body.result.conversation_id);
    const c = await submit({ fields: { q: "anon" } });
    const d = await submit({ fields: { q: "anon" } });
    expect(c.body.result.conversation_id).not.toBe(d.body.result.conversation_id);
  });

  test.each([
    [{ contact_email: "not-an-email" }, "contact_email"],
    [{ fields: { a: 5 } }, "fields"],
    [{ fields: { a: [1] } }, "fields"],
    [{ page_url: "nope" }, "page_url"],
  ])("%j is 400 naming %s", async (body, field) => {
    const res = await submit(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
  });

  test("missing integration_key is 400, unknown 404, disabled sitecms 403", async () => {
    const missing = await client.post("/api/integrations/sitecms/forms-plugin", { contact_email: "a@b.co" });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain("integration_key");
    expect((await client.post("/api/integrations/sitecms/forms-plugin", { integration_key: "ik_nope" })).status).toBe(404);
    const quiet = await createTestBot(client, alice, "No forms");
    await client.patch(`/api/bots/${quiet.id}/channels`, { channel_type: "sitecms", is_active: false }, alice.token);
    const res = await client.post("/api/integrations/sitecms/forms-plugin", { integration_key: quiet.integration_key });
    expect(res.status).toBe(403);
  });
});
