import { beforeAll, describe, expect, test } from "bun:test";
import { MAX_BODY_BYTES } from "../../src/http/app.ts";
import { testClient, uniqueEmail, type Client } from "../support/harness.ts";

let client: Client;
beforeAll(async () => {
  client = await testClient();
});

describe("the envelope and status codes", () => {
  test("malformed JSON is 400", async () => {
    const res = await client.request("POST", "/api/auth/register", { raw: '{"email": "a@b.co", ' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: "malformed request body: expected valid JSON", error_code: 400 });
  });

  test("a body over 64 KiB is 413 and nothing is created", async () => {
    const email = uniqueEmail("big");
    const raw = JSON.stringify({ email, password: "x".repeat(MAX_BODY_BYTES) });
    const res = await client.request("POST", "/api/auth/register", { raw });
    expect(res.status).toBe(413);
    expect(res.body.ok).toBe(false);
    expect(res.body.error_code).toBe(413);
    const login = await client.post("/api/auth/login", { email, password: "x".repeat(10) });
    expect(login.status).toBe(401);
  });

  test("a chunked body over 64 KiB is 413 too", async () => {
    const big = JSON.stringify({ email: uniqueEmail(), password: "y".repeat(MAX_BODY_BYTES) });
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const res = await client.app.handle(
      new Request("http://test.local/api/auth/register", { method: "POST", body: stream, headers: { "content-type": "application/json" } }),
    );
    expect(res.status).toBe(413);
  });

  test("an unknown route is 404 in the envelope", async () => {
    const res = await client.get("/api/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ ok: false, error_code: 404 });
  });

  test("a wrong JSON type names the field", async () => {
    const res = await client.post("/api/auth/login", { email: "a@b.co", password: 123456 });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("password");
  });

  test("healthz and readyz answer 200", async () => {
    expect((await client.get("/healthz")).status).toBe(200);
    const ready = await client.get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.result.status).toBe("ready");
  });

  test("every response carries a request id", async () => {
    const res = await client.get("/healthz");
    expect(res.headers.get("x-request-id")).toBeString();
  });
});
