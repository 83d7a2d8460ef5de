// @elysiajs/openapi replaces TypeBox's uuid/email checks with ones that build a zod schema per
// call (a fifth of an ingest request's CPU); ours must stay in force once the app is built.
import { expect, test } from "bun:test";
import { FormatRegistry } from "@sinclair/typebox";
import { createApp } from "../../src/http/app.ts";
import { testPlatform } from "../support/harness.ts";
import { composeServices } from "../../src/services.ts";

test("the uuid and email format checks are plain regular expressions, and still right", async () => {
  const platform = await testPlatform();
  createApp(composeServices(platform));
  for (const format of ["uuid", "email"]) expect(FormatRegistry.Get(format)!.toString()).toContain(".test(value)");
  const uuid = FormatRegistry.Get("uuid")!;
  expect(uuid("0b5c8a1e-2f4d-4c1b-9a7e-3d2f1c0b9a8e")).toBe(true);
  expect(uuid("0b5c8a1e-2f4d-4c1b-9a7e-3d2f1c0b9a8")).toBe(false);
  const email = FormatRegistry.Get("email")!;
  expect(email("ann@example.com")).toBe(true);
  expect(email("ann@")).toBe(false);
  await platform.close();
});
