// @elysiajs/openapi 1.4.16 replaces TypeBox's `uuid` and `email` format checks, for every
// schema in the process, with ones that build a zod schema on each call: measured at about
// 20% of an ingest request's CPU (bench/ingest.ts profile). These are plain regular
// expressions (Elysia's own); this module is imported right after the plugin so it wins.
import { FormatRegistry } from "@sinclair/typebox";

const UUID = /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

FormatRegistry.Set("uuid", (value) => UUID.test(value));
FormatRegistry.Set("email", (value) => EMAIL.test(value));
