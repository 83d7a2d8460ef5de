import { t, type TSchema } from "elysia";

/** Every success is {ok:true, result}; the schema helper keeps OpenAPI honest about it. */
export const Ok = <T extends TSchema>(result: T) => t.Object({ ok: t.Literal(true), result });

export const ErrorResponse = t.Object(
  {
    ok: t.Literal(false),
    error: t.String({ description: "Human sentence naming the field or reason" }),
    error_code: t.Integer({ description: "The HTTP status" }),
    retry_after: t.Optional(t.Integer({ description: "Seconds to wait (429 only)" })),
  },
  { title: "ErrorResponse" },
);
export type ErrorResponse = typeof ErrorResponse.static;

export const ok = <T>(result: T) => ({ ok: true as const, result });

/** Error responses a route can give, for its OpenAPI `response` map. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, ErrorResponse])) as Record<number, typeof ErrorResponse>;
