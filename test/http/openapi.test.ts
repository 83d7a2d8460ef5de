// /swagger/json is the contract clients generate code from (docs/design.md §8). These checks are
// written over whatever operations exist, so they keep holding as features add routes,
// plus explicit checks for the operations the foundation has built.
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, test } from "bun:test";
import { testClient } from "../support/harness.ts";
import { MESSAGE_UPDATE_KINDS, UPDATE_KINDS } from "../../src/core/updates.ts";

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const SPEC_TAGS = ["Auth", "Bots", "Bot Runtime", "Channels", "Messages", "site-form integration", "Inbox", "Widget"];
/** Spec §5: these tags group the cabinet (user token) and the bot runtime (bot token). */
const USER_TOKEN_TAGS = new Set(["Bots", "Channels", "Inbox"]);
const BOT_TOKEN_TAGS = new Set(["Bot Runtime"]);
const USER_SECURITY = [{ userBearerAuth: [] }];

const BUILT_OPERATIONS: Array<[method: string, path: string, userToken: boolean]> = [
  ["post", "/api/auth/register", false],
  ["post", "/api/auth/login", false],
  ["get", "/api/auth/me", true],
  ["get", "/api/bots", true],
  ["post", "/api/bots", true],
  ["get", "/api/bots/{id}", true],
  ["post", "/api/bots/{id}/token", true],
  ["get", "/api/bots/{id}/channels", true],
  ["patch", "/api/bots/{id}/channels", true],
];

interface Operation {
  method: string;
  path: string;
  op: any;
}

let doc: any;
let operations: Operation[];

/** Follows a local `#/components/...` reference, so checks pass whether a model is inlined or shared. */
function resolve(node: any): any {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 10; hops++) {
    const ref: string = current.$ref;
    if (!ref.startsWith("#/")) throw new Error(`non-local $ref ${ref}`);
    current = ref
      .slice(2)
      .split("/")
      .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((at: any, key) => at?.[key], doc);
  }
  return current;
}

const operation = (method: string, path: string) => doc.paths?.[path]?.[method];

beforeAll(async () => {
  const client = await testClient();
  const res = await client.get("/swagger/json");
  expect(res.status).toBe(200);
  doc = res.body;
  operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]: [string, any]) =>
    HTTP_METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  );
}, 30_000);

describe("the OpenAPI document", () => {
  // KNOWN BUG (src/http/envelope.ts, not ours to edit): ErrorResponse carries
  // `$id: "#/components/schemas/ErrorResponse"` and is inlined into every error
  // response, so the document defines that $id dozens of times and the validator
  // rejects it ("$id ... defined more than once"). Turn this back into `test` once
  // the $id is gone (or the model is referenced from components instead of inlined).
  test("validates as OpenAPI 3.1 with a real validator", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  }, 30_000);

  test("is OpenAPI 3.1 with info.version 1.0.0", () => {
    expect(doc.openapi).toStartWith("3.1");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.info.title).toBeString();
  });

  test("declares both security schemes of the specification", () => {
    const schemes = doc.components?.securitySchemes ?? {};
    expect(schemes.userBearerAuth).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(schemes.botBearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  test("declares the specification's eight tags", () => {
    const names = (doc.tags ?? []).map((tag: { name: string }) => tag.name);
    for (const tag of SPEC_TAGS) expect(names).toContain(tag);
  });

  test("every operation carries a declared tag", () => {
    const declared = new Set((doc.tags ?? []).map((tag: { name: string }) => tag.name));
    expect(operations.length).toBeGreaterThan(0);
    for (const { method, path, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, tagged: Array.isArray(op.tags) && op.tags.length > 0 }).toEqual({ where, tagged: true });
      for (const tag of op.tags) expect({ where, tag, declared: declared.has(tag) }).toEqual({ where, tag, declared: true });
    }
  });

  test("security requirements name declared schemes, and follow the tag's token kind", () => {
    const schemes = new Set(Object.keys(doc.components?.securitySchemes ?? {}));
    for (const { method, path, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const requirement of op.security ?? []) {
        for (const name of Object.keys(requirement)) expect({ where, name, declared: schemes.has(name) }).toEqual({ where, name, declared: true });
      }
      const tags: string[] = op.tags ?? [];
      if (tags.some((tag) => USER_TOKEN_TAGS.has(tag))) expect({ where, security: op.security }).toEqual({ where, security: USER_SECURITY });
      if (tags.some((tag) => BOT_TOKEN_TAGS.has(tag))) expect({ where, security: op.security }).toEqual({ where, security: [{ botBearerAuth: [] }] });
    }
  });

  test("the operations built so far are documented with the right auth", () => {
    for (const [method, path, userToken] of BUILT_OPERATIONS) {
      const op = operation(method, path);
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, documented: op !== undefined }).toEqual({ where, documented: true });
      if (userToken) expect({ where, security: op.security }).toEqual({ where, security: USER_SECURITY });
      else expect({ where, security: op.security ?? [] }).toEqual({ where, security: [] });
    }
    expect(operation("post", "/api/auth/register").tags).toContain("Auth");
    expect(operation("get", "/api/bots").tags).toContain("Bots");
    expect(operation("patch", "/api/bots/{id}/channels").tags).toContain("Channels");
  });

  test("path parameters are declared, required and typed", () => {
    for (const { method, path, op } of operations) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const name of names) {
        const param = (op.parameters ?? []).map(resolve).find((p: any) => p.in === "path" && p.name === name);
        const where = `${method.toUpperCase()} ${path} {${name}}`;
        expect({ where, required: param?.required, hasSchema: Boolean(param?.schema) }).toEqual({ where, required: true, hasSchema: true });
      }
    }
    const id = operation("get", "/api/bots/{id}").parameters.find((p: any) => p.name === "id");
    expect(resolve(id.schema)).toMatchObject({ type: "string", format: "uuid" });
  });

  test("every operation documents its responses", () => {
    for (const { method, path, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, responses: Object.keys(op.responses ?? {}).length > 0 }).toEqual({ where, responses: true });
    }
    const login = operation("post", "/api/auth/login").responses;
    expect(Object.keys(login)).toEqual(expect.arrayContaining(["200", "400", "401"]));
    expect(Object.keys(operation("post", "/api/bots").responses)).toContain("201");
  });

  // KNOWN BUG (src/http/app.ts, not ours to edit): the app-wide `.onParse(fn)` that
  // enforces the 64 KiB limit and the malformed-JSON message puts a function parser
  // into every route's `hooks.parse`; @elysiajs/openapi builds `requestBody.content`
  // only from named parsers ("json", ...) when `hooks.parse` is non-empty and skips
  // functions, so every request body is documented as `content: {}` with no schema.
  // Turn this back into `test` once bodies carry their schemas.
  test("request bodies carry the schemas the server validates with", () => {
    const withBody = operations.filter(({ op }) => op.requestBody);
    expect(withBody.length).toBeGreaterThan(0);
    for (const { method, path, op } of withBody) {
      const where = `${method.toUpperCase()} ${path}`;
      const body = resolve(op.requestBody);
      // Uploads are documented as what they are: multipart with a binary `file` part.
      const json = body.content?.["application/json"] ?? body.content?.["multipart/form-data"];
      expect({ where, jsonSchema: Boolean(json?.schema) }).toEqual({ where, jsonSchema: true });
    }

    const register = resolve(resolve(operation("post", "/api/auth/register").requestBody).content["application/json"].schema);
    expect(register.type).toBe("object");
    expect(register.required).toEqual(expect.arrayContaining(["email", "password"]));
    expect(resolve(register.properties.email)).toMatchObject({ type: "string", format: "email" });
    expect(resolve(register.properties.password)).toMatchObject({ type: "string", minLength: 6 });

    const createBot = resolve(resolve(operation("post", "/api/bots").requestBody).content["application/json"].schema);
    expect(createBot.required).toContain("name");

    const patchChannel = resolve(resolve(operation("patch", "/api/bots/{id}/channels").requestBody).content["application/json"].schema);
    expect(patchChannel.required).toContain("channel_type");
  });

  // A bot author writes a client from /swagger alone. These hold for every
  // operation, including routes added later: document a route with detail.summary and
  // detail.description, Ok(Model, "what the caller gets") for the success, errors(...) for the
  // rest, and an example on the request and result models (see src/http/envelope.ts).
  test("every operation has a summary and a description of its semantics", () => {
    for (const { method, path, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, summary: typeof op.summary === "string" && op.summary.length > 0 }).toEqual({ where, summary: true });
      expect({ where, description: typeof op.description === "string" && op.description.length >= 20 }).toEqual({ where, description: true });
    }
  });

  test("no response is described generically", () => {
    for (const { method, path, op } of operations) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const description: string = resolve(response).description ?? "";
        const where = `${method.toUpperCase()} ${path} ${status}`;
        expect({ where, description }).not.toEqual({ where, description: expect.stringMatching(/^(Response for status \d+)?$/) });
      }
    }
  });

  test("every request body and every response has an example", () => {
    const hasExample = (media: any) => {
      const schema = resolve(media?.schema);
      return media?.example !== undefined || Object.keys(media?.examples ?? {}).length > 0 || (Array.isArray(schema?.examples) && schema.examples.length > 0);
    };
    for (const { method, path, op } of operations) {
      if (op.requestBody) {
        const content = resolve(op.requestBody).content ?? {};
        const where = `${method.toUpperCase()} ${path} request`;
        expect({ where, example: Object.values(content).some(hasExample) }).toEqual({ where, example: true });
      }
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const content = resolve(response).content ?? {};
        const where = `${method.toUpperCase()} ${path} ${status}`;
        expect({ where, example: Object.values(content).some(hasExample) }).toEqual({ where, example: true });
      }
    }
  });

  test("integers are typed integer; get-updates documents the specification's defaults", () => {
    const params = operation("get", "/api/bots/{id}/get-updates").parameters.map(resolve);
    const param = (name: string) => resolve(params.find((p: any) => p.name === name).schema);
    expect(param("limit")).toMatchObject({ type: "integer", default: 100 });
    expect(param("timeout")).toMatchObject({ type: "integer", default: 30 });
    expect(param("offset").type).toBe("integer");
    // Nowhere is an integer shown as Elysia's coercion stand-in (a string defaulting to "0").
    expect(JSON.stringify(doc)).not.toContain('"format":"integer"');
  });

  test("the Update schema lists every update kind, each described", () => {
    const ok = resolve(operation("get", "/api/bots/{id}/get-updates").responses["200"].content["application/json"].schema);
    const update = resolve(resolve(ok.properties.result).items);
    expect(resolve(update.properties.update_id).type).toBe("integer");
    for (const kind of UPDATE_KINDS) {
      const property = resolve(update.properties[kind]);
      expect({ kind, described: typeof property?.description === "string" && property.description.length > 10 }).toEqual({ kind, described: true });
    }
    for (const kind of MESSAGE_UPDATE_KINDS) expect(resolve(resolve(update.properties[kind]).properties.date).type).toBe("integer");
  });
});
