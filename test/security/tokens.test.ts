// User tokens are HS256 with `exp`, nothing else; a forged or malformed
// token is 401, never 500.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";

let client: Client;
let user: TestUser;
beforeAll(async () => {
  client = await testClient();
  user = await registerUser(client);
});
afterAll(() => client.platform.close());

const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

function sign(header: Record<string, unknown>, payload: Record<string, unknown>, secret = client.platform.jwtSecret): string {
  const body = `${b64(header)}.${b64(payload)}`;
  const hash = header.alg === "HS512" ? "sha512" : header.alg === "HS384" ? "sha384" : "sha256";
  return `${body}.${createHmac(hash, secret).update(body).digest("base64url")}`;
}

const me = (token: string) => client.get("/api/auth/me", token);
const hourFromNow = () => Math.floor(Date.now() / 1000) + 3600;

test("a token we would issue passes: the hand-made signer is right", async () => {
  expect((await me(sign({ alg: "HS256", typ: "JWT" }, { sub: user.id, typ: "user", exp: hourFromNow() }))).status).toBe(200);
});

test.each([
  ["HS512 with the right key", { alg: "HS512", typ: "JWT" }, () => ({ sub: user.id, typ: "user", exp: hourFromNow() })],
  ["HS384 with the right key", { alg: "HS384", typ: "JWT" }, () => ({ sub: user.id, typ: "user", exp: hourFromNow() })],
  ["no exp", { alg: "HS256", typ: "JWT" }, () => ({ sub: user.id, typ: "user" })],
  ["a non-UUID sub", { alg: "HS256", typ: "JWT" }, () => ({ sub: "1; drop table users", typ: "user", exp: hourFromNow() })],
  ["a numeric sub", { alg: "HS256", typ: "JWT" }, () => ({ sub: 42, typ: "user", exp: hourFromNow() })],
  ["an expired token", { alg: "HS256", typ: "JWT" }, () => ({ sub: user.id, typ: "user", exp: 1000 })],
  ["a bot-typed token", { alg: "HS256", typ: "JWT" }, () => ({ sub: user.id, typ: "bot", exp: hourFromNow() })],
] as const)("%s is 401", async (_name, header, payload) => {
  const res = await me(sign(header, payload()));
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ ok: false, error_code: 401 });
});

test("alg none and garbage are 401", async () => {
  const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: user.id, typ: "user", exp: hourFromNow() })}.`;
  for (const token of [none, "a.b.c", "x".repeat(3000), `${b64({ alg: "HS256" })}.%%%.`]) {
    expect((await me(token)).status).toBe(401);
  }
});
