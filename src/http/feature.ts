import type { TLiteral, TUnion } from "@sinclair/typebox";
import { Elysia, t, type ElysiaConfig } from "elysia";

/**
 * Every Elysia instance of ours is made here so they share one body policy:
 * "typebox" normalisation drops unknown properties instead of rejecting them
 * (clients such as Telegram libraries send extras), and never turns a wrong-typed
 * value into something that passes (Elysia's default mirror does).
 */
export const feature = <const Prefix extends string = "">(config: ElysiaConfig<Prefix> = {}) =>
  new Elysia({ normalize: "typebox", ...config });

type Literals<T extends readonly string[]> = { [K in keyof T]: TLiteral<T[K]> };

/**
 * An enum of string literals. Elysia's t.UnionEnum fills a missing required value
 * with the first member, so it is never used.
 */
export const oneOf = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  t.Union(values.map((v) => t.Literal(v)), options) as unknown as TUnion<[...Literals<T>]>;
