import { beforeAll, describe, expect, test } from "bun:test";
import { registerUser, testClient, uniqueEmail, type Client } from "../support/harness.ts";

let client: Client;
beforeAll(async () => {
  client = await testClient();
});

describe("register", () => {
  test("returns a bearer token, its lifetime and the user", async () => {
    const email = uniqueEmail();
    const res = await client.post("/api/auth/register", { email, password: "secret123" });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.result.token_type).toBe("Bearer");
    expect(res.body.result.expires_in).toBeGreaterThan(0);
    expect(res.body.result.user).toEqual({ id: expect.any(String), email, created_at: expect.any(String) });
    expect(res.body.result.user.password_hash).toBeUndefined();
  });

  test("the token opens /api/auth/me", async () => {
    const user = await registerUser(client);
    const me = await client.get("/api/auth/me", user.token);
    expect(me.status).toBe(200);
    expect(me.body.result.email).toBe(user.email);
  });

  test("a taken email is 409, in any letter case", async () => {
    const email = uniqueEmail("dup");
    await registerUser(client, email);
    const res = await client.post("/api/auth/register", { email: email.toUpperCase(), password: "secret123" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ ok: false, error: "email is already registered", error_code: 409 });
  });

  test.each([
    [{ email: "not-an-email", password: "secret123" }, "email"],
    [{ email: uniqueEmail(), password: "12345" }, "password"],
    [{ password: "secret123" }, "email"],
    [{ email: uniqueEmail() }, "password"],
    [{ email: 42, password: "secret123" }, "email"],
  ])("invalid body %j is 400 naming %s", async (body, field) => {
    const res = await client.post("/api/auth/register", body);
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toContain(field);
  });
});

describe("login", () => {
  test("right credentials give a working token", async () => {
    const user = await registerUser(client);
    const res = await client.post("/api/auth/login", { email: user.email, password: "secret123" });
    expect(res.status).toBe(200);
    const me = await client.get("/api/auth/me", res.body.result.token);
    expect(me.body.result.id).toBe(user.id);
  });

  test("email lookup ignores case", async () => {
    const user = await registerUser(client);
    const res = await client.post("/api/auth/login", { email: user.email.toUpperCase(), password: "secret123" });
    expect(res.status).toBe(200);
  });

  test("wrong password and unknown email are the same 401", async () => {
    const user = await registerUser(client);
    const wrong = await client.post("/api/auth/login", { email: user.email, password: "wrong-password" });
    const unknown = await client.post("/api/auth/login", { email: uniqueEmail("nobody"), password: "secret123" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ ok: false, error: "wrong email or password", error_code: 401 });
  });
});

describe("me", () => {
  test.each([
    ["no header", undefined],
    ["garbage token", "not-a-jwt"],
    ["token signed with another key", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4IiwidHlwIjoidXNlciJ9.c2lnbmF0dXJl"],
  ])("%s is 401 with the error body", async (_, token) => {
    const res = await client.get("/api/auth/me", token);
    expect(res.status).toBe(401);
    expect(res.body.ok).toBe(false);
    expect(typeof res.body.error).toBe("string");
    expect(res.body.error_code).toBe(401);
  });

  test("an expired token is 401", async () => {
    const shortLived = await testClient({ jwtTtlSeconds: 1 });
    const user = await registerUser(shortLived);
    await Bun.sleep(2100);
    const res = await shortLived.get("/api/auth/me", user.token);
    expect(res.status).toBe(401);
  });

  test("a bot token is not a user token", async () => {
    const user = await registerUser(client);
    const bot = (await client.post("/api/bots", { name: "x" }, user.token)).body.result;
    const res = await client.get("/api/auth/me", bot.token);
    expect(res.status).toBe(401);
  });
});
