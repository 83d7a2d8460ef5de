export {};
// Preloaded before every test file (bunfig.toml). Tests run in the mode the environment
// names: DATABASE_URL + NATS_URL → Postgres + NATS; neither → embedded (PGlite in memory).
process.env.LOG_LEVEL ??= "silent";
process.env.JWT_SECRET ??= "test-secret-test-secret-test-secret-0123456789";
process.env.RATE_LIMITS ??= "off";
process.env.ALLOW_PRIVATE_WEBHOOKS ??= "1";

// Open (and migrate) the shared database before any file's hooks run: PGlite's first
// start takes seconds, longer than a hook's default timeout.
const { sharedDb } = await import("./support/harness.ts");
await sharedDb();
