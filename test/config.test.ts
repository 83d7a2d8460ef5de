// loadConfig is given explicit environments, so these never depend on the test process's own.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";

const SECRET = "0123456789abcdef0123456789abcdef";
const PRODUCTION = { DATABASE_URL: "postgres://postgres@127.0.0.1:5432/app", NATS_URL: "nats://127.0.0.1:4222", JWT_SECRET: SECRET };

function configError(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig defaults", () => {
  test("no environment is the embedded default of the README's table", () => {
    expect(loadConfig({})).toEqual({
      mode: "embedded",
      port: 3000,
      host: "0.0.0.0",
      dataDir: "./data",
      databaseUrl: undefined,
      natsUrl: undefined,
      jwtSecret: undefined,
      publicUrl: "http://localhost:3000",
      allowPrivateWebhooks: false,
      logLevel: "info",
      logPretty: false,
      rateLimits: true,
      limits: { publicPerIp: 120, publicPerBot: 3000, loginPerEmail: 10, loginPerIp: 100, botSendPerSecond: 30 },
      jwtTtlSeconds: 7 * 24 * 3600,
      pushContact: "mailto:operator@localhost",
      trustProxy: { kind: "none" },
      natsPrefix: "",
      natsReplicas: 1,
      metricsPort: undefined,
      smtpUrl: undefined,
      mailFrom: "botinbox <no-reply@localhost>",
      routingReassignAfterSeconds: 600,
      intakeTransactions: 1,
    });
  });

  test("SMTP_URL and MAIL_FROM are validated", () => {
    expect(loadConfig({ SMTP_URL: "smtps://u:p@mail.example.com:465" }).smtpUrl).toBe("smtps://u:p@mail.example.com:465");
    expect(configError({ SMTP_URL: "http://mail.example.com" })).toContain("SMTP_URL must use smtp: or smtps:");
    expect(loadConfig({ MAIL_FROM: "Acme Support <help@acme.example>" }).mailFrom).toBe("Acme Support <help@acme.example>");
    expect(loadConfig({ PUBLIC_URL: "https://inbox.acme.example" }).mailFrom).toBe("botinbox <no-reply@inbox.acme.example>");
    expect(configError({ MAIL_FROM: "not an address" })).toContain("MAIL_FROM");
  });

  test("NATS_PREFIX, NATS_REPLICAS and METRICS_PORT are validated", () => {
    expect(loadConfig({ NATS_PREFIX: "shop-2" }).natsPrefix).toBe("shop-2");
    expect(configError({ NATS_PREFIX: "a.b" })).toContain("NATS_PREFIX");
    expect(loadConfig({ NATS_REPLICAS: "3" }).natsReplicas).toBe(3);
    expect(configError({ NATS_REPLICAS: "2" })).toContain("NATS_REPLICAS must be 1 or 3");
    expect(loadConfig({ METRICS_PORT: "9100" }).metricsPort).toBe(9100);
    expect(configError({ METRICS_PORT: "x" })).toContain("METRICS_PORT");
    // A cluster's seeds, comma-separated; each one must be a NATS URL.
    expect(loadConfig({ ...PRODUCTION, NATS_URL: "nats://a:4222,nats://b:4222" }).natsUrl).toBe("nats://a:4222,nats://b:4222");
    expect(configError({ ...PRODUCTION, NATS_URL: "nats://a:4222,http://b" })).toContain("NATS_URL");
  });

  test("INTAKE_TRANSACTIONS is a whole number from 1 to 8", () => {
    expect(loadConfig({ ...PRODUCTION, INTAKE_TRANSACTIONS: "3" }).intakeTransactions).toBe(3);
    expect(configError({ INTAKE_TRANSACTIONS: "0" })).toContain("INTAKE_TRANSACTIONS must be a positive integer");
    expect(configError({ INTAKE_TRANSACTIONS: "1.5" })).toContain("INTAKE_TRANSACTIONS must be a positive integer");
    expect(configError({ INTAKE_TRANSACTIONS: "9" })).toContain("INTAKE_TRANSACTIONS must be at most 8");
  });

  test("PUSH_CONTACT defaults from an https PUBLIC_URL and must be mailto: or https:", () => {
    expect(loadConfig({ PUBLIC_URL: "https://inbox.example.com/" }).pushContact).toBe("https://inbox.example.com");
    expect(loadConfig({ PUSH_CONTACT: "mailto:ops@example.com" }).pushContact).toBe("mailto:ops@example.com");
    expect(configError({ PUSH_CONTACT: "http://example.com" })).toContain("PUSH_CONTACT");
  });

  test("each rate limit has its own setting, validated", () => {
    expect(loadConfig({ RATE_LIMIT_PUBLIC_PER_IP: "5" }).limits.publicPerIp).toBe(5);
    expect(loadConfig({ RATE_LIMIT_BOT_SEND_PER_SECOND: "2" }).limits.botSendPerSecond).toBe(2);
    expect(configError({ RATE_LIMIT_LOGIN_PER_EMAIL: "0" })).toContain("RATE_LIMIT_LOGIN_PER_EMAIL");
  });

  test("empty strings count as unset", () => {
    const config = loadConfig({ PORT: "", HOST: "", DATA_DIR: "", JWT_SECRET: "", LOG_LEVEL: "", RATE_LIMITS: "", PUBLIC_URL: "" });
    expect(config).toEqual(loadConfig({}));
  });

  test("PUBLIC_URL follows PORT unless given, without a trailing slash", () => {
    expect(loadConfig({ PORT: "8080" }).publicUrl).toBe("http://localhost:8080");
    expect(loadConfig({ PUBLIC_URL: "https://chat.example.com//" }).publicUrl).toBe("https://chat.example.com");
  });
});

describe("loadConfig reads every setting", () => {
  test("DATABASE_URL + NATS_URL + JWT_SECRET is production mode", () => {
    const config = loadConfig(PRODUCTION);
    expect(config.mode).toBe("production");
    expect(config.databaseUrl).toBe(PRODUCTION.DATABASE_URL);
    expect(config.natsUrl).toBe(PRODUCTION.NATS_URL);
    expect(config.jwtSecret).toBe(SECRET);
    expect(loadConfig({ ...PRODUCTION, DATABASE_URL: "postgresql://db/app", NATS_URL: "tls://nats:4222" }).mode).toBe("production");
  });

  test("the remaining variables", () => {
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: "/var/lib/botinbox",
      JWT_SECRET: SECRET,
      JWT_TTL_SECONDS: "3600",
      ALLOW_PRIVATE_WEBHOOKS: "1",
      LOG_LEVEL: "debug",
      LOG_PRETTY: "true",
      RATE_LIMITS: "off",
    });
    expect(config).toMatchObject({
      port: 0,
      host: "127.0.0.1",
      dataDir: "/var/lib/botinbox",
      jwtSecret: SECRET,
      jwtTtlSeconds: 3600,
      allowPrivateWebhooks: true,
      logLevel: "debug",
      logPretty: true,
      rateLimits: false,
    });
  });

  test.each([
    ["1", true],
    ["true", true],
    ["on", true],
    ["YES", true],
    ["0", false],
    ["false", false],
    ["off", false],
    ["No", false],
  ])("flag value %p reads as %p", (raw, expected) => {
    expect(loadConfig({ RATE_LIMITS: raw }).rateLimits).toBe(expected);
    expect(loadConfig({ ALLOW_PRIVATE_WEBHOOKS: raw }).allowPrivateWebhooks).toBe(expected);
    expect(loadConfig({ LOG_PRETTY: raw }).logPretty).toBe(expected);
  });

  test("PORT accepts the whole range", () => {
    expect(loadConfig({ PORT: "0" }).port).toBe(0);
    expect(loadConfig({ PORT: "65535" }).port).toBe(65535);
  });
});

describe("loadConfig refuses bad values with a sentence naming the variable", () => {
  test.each(["abc", "-1", "65536", "1.5", "80x"])("PORT=%p", (port) => {
    expect(configError({ PORT: port })).toContain("PORT");
  });

  test("DATABASE_URL without NATS_URL, and the reverse", () => {
    expect(configError({ DATABASE_URL: PRODUCTION.DATABASE_URL, JWT_SECRET: SECRET })).toContain("DATABASE_URL and NATS_URL go together");
    expect(configError({ NATS_URL: PRODUCTION.NATS_URL })).toContain("DATABASE_URL and NATS_URL go together");
  });

  test("URLs that are not URLs or use the wrong scheme", () => {
    expect(configError({ ...PRODUCTION, DATABASE_URL: "not a url" })).toContain("DATABASE_URL is not a valid URL");
    expect(configError({ ...PRODUCTION, DATABASE_URL: "mysql://db/app" })).toContain("DATABASE_URL must use");
    expect(configError({ ...PRODUCTION, NATS_URL: "http://127.0.0.1:4222" })).toContain("NATS_URL must use");
    expect(configError({ PUBLIC_URL: "ftp://example.com" })).toContain("PUBLIC_URL must use");
    expect(configError({ PUBLIC_URL: "example.com" })).toContain("PUBLIC_URL");
  });

  test("production needs JWT_SECRET, and any JWT_SECRET must be long enough", () => {
    expect(configError({ ...PRODUCTION, JWT_SECRET: undefined })).toContain("JWT_SECRET is required");
    expect(configError({ JWT_SECRET: "short" })).toContain("JWT_SECRET must be at least 32");
    expect(configError({ ...PRODUCTION, JWT_SECRET: SECRET.slice(1) })).toContain("JWT_SECRET must be at least 32");
  });

  test("LOG_LEVEL outside pino's levels", () => {
    expect(configError({ LOG_LEVEL: "verbose" })).toContain("LOG_LEVEL");
    for (const level of ["fatal", "error", "warn", "info", "debug", "trace", "silent"]) {
      expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
  });

  test("flags that are not yes/no", () => {
    expect(configError({ RATE_LIMITS: "sometimes" })).toContain("RATE_LIMITS");
    expect(configError({ ALLOW_PRIVATE_WEBHOOKS: "2" })).toContain("ALLOW_PRIVATE_WEBHOOKS");
    expect(configError({ LOG_PRETTY: "pretty" })).toContain("LOG_PRETTY");
  });

  test.each(["0", "-5", "1.5", "abc"])("JWT_TTL_SECONDS=%p", (ttl) => {
    expect(configError({ JWT_TTL_SECONDS: ttl })).toContain("JWT_TTL_SECONDS");
  });
});
