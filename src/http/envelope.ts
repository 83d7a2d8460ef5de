// The response envelope and the documentation helpers every route uses. How to document a
// route (test/http/openapi.test.ts checks every operation):
//   detail: { summary, description }         what it does; what confirms, what 409 means, units
//   body: withExample(Model, {...})          a request example (or `examples` on the model)
//   response: {
//     200: Ok(Model, "what the caller gets"),   the example comes from the model's `examples`
//     ...errors(400, 401, { 409: "what a conflict means here" }),
//   }
import { t, type TSchema } from "elysia";

/** A model with a documented example (JSON Schema `examples`, shown by /swagger). */
export const withExample = <T extends TSchema>(schema: T, example: unknown): T => ({ ...schema, examples: [example] });

/** The example a model carries: its own, or one built from its parts' (arrays, literals, objects). */
function exampleOf(schema: TSchema): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.type === "array" && schema.items) {
    const item = exampleOf(schema.items as TSchema);
    return item === undefined ? undefined : [item];
  }
  if (schema.type === "object" && schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
      const value = exampleOf(property);
      if (value === undefined) return undefined;
      out[key] = value;
    }
    return out;
  }
  return undefined;
}

/**
 * Every success is {ok:true, result}. `description` says what the caller gets (it becomes the
 * response's description in OpenAPI); the example wraps the result model's example.
 */
export const Ok = <T extends TSchema>(result: T, description?: string) => {
  const example = exampleOf(result);
  return t.Object({ ok: t.Literal(true), result }, {
    ...(description ? { description } : {}),
    ...(example === undefined ? {} : { examples: [{ ok: true, result: example }] }),
  });
};

export const ErrorResponse = t.Object(
  {
    ok: t.Literal(false),
    error: t.String({ description: "Human sentence naming the field or reason" }),
    error_code: t.Integer({ description: "The HTTP status" }),
    retry_after: t.Optional(t.Integer({ description: "Seconds to wait (429 and 503)" })),
  },
  { title: "ErrorResponse" },
);
export type ErrorResponse = typeof ErrorResponse.static;

export const ok = <T>(result: T) => ({ ok: true as const, result });

/** What each error status means wherever it appears; a route may say more about its own. */
const ERROR_MEANINGS: Record<number, [description: string, example: string]> = {
  400: ["Invalid input: the error names the first offending field", "text: Expected string length less or equal to 4096"],
  401: ["Missing, invalid or expired token", "invalid or expired user token"],
  403: ["The token is valid but not for this resource (another bot's id in the path)", "this bot token belongs to another bot"],
  404: ["Nothing with this id belongs to the caller", "bot not found"],
  409: ["Conflicts with the resource's current state", "conflict"],
  413: ["The body is larger than 64 KiB", "request body larger than 65536 bytes"],
  415: ["The file's type (read from its bytes) is not accepted here", "files of type text/html cannot be sent here"],
  429: ["Too many requests: wait retry_after seconds", "too many requests, retry in 12 s"],
  503: ["The database or NATS is unreachable: retry after retry_after seconds; nothing was changed", "NATS is unreachable, retry shortly"],
};

function errorSchema(status: number, description?: string) {
  const [meaning, sentence] = ERROR_MEANINGS[status] ?? [`Error ${status}`, "error"];
  const example: Record<string, unknown> = { ok: false, error: sentence, error_code: status };
  if (status === 429 || status === 503) example.retry_after = status === 429 ? 12 : 2;
  return { ...ErrorResponse, description: description ?? meaning, examples: [example] } as typeof ErrorResponse;
}

/**
 * Error responses a route can give, for its `response` map: statuses get the common meaning,
 * `{ 409: "…" }` says what the status means on this route.
 */
export const errors = (...statuses: Array<number | Record<number, string>>) =>
  Object.fromEntries(statuses.flatMap((s) =>
    typeof s === "number" ? [[s, errorSchema(s)]] : Object.entries(s).map(([code, text]) => [Number(code), errorSchema(Number(code), text)]),
  )) as Record<number, typeof ErrorResponse>;
