// Every setting the platform reads, in one place, validated before anything starts.
// The README's configuration table documents exactly these.

import { isIP, isIPv4 } from "node:net";

export type Mode = "embedded" | "production";

export interface Config {
  mode: Mode;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  natsUrl: string | undefined;
  /** undefined in embedded mode until the data dir supplies the generated one */
  jwtSecret: string | undefined;
  publicUrl: string;
  allowPrivateWebhooks: boolean;
  logLevel: string;
  logPretty: boolean;
  rateLimits: boolean;
  limits: RateLimitSettings;
  jwtTtlSeconds: number;
  /** VAPID subject: how push services can reach the operator of this server. */
  pushContact: string;
  /** TRUST_PROXY: which X-Forwarded-For entries name the client (none by default). */
  trustProxy: TrustProxy;
  /** NATS_PREFIX: prepended to every stream, bucket and subject, so deployments can share a NATS server. */
  natsPrefix: string;
  /** NATS_REPLICAS: JetStream replicas of every stream and bucket (3 on a 3-node cluster). */
  natsReplicas: 1 | 3;
  /** METRICS_PORT: the worker processes (no HTTP front) serve /metrics here when set. */
  metricsPort: number | undefined;
  /** SMTP_URL: the server the platform sends its own mail through (password reset, invites); none: no mail. */
  smtpUrl: string | undefined;
  /** MAIL_FROM: the sender of the platform's own mail, `Name <address>` or an address. */
  mailFrom: string;
  /** ROUTING_REASSIGN_AFTER_S: a routed conversation whose assignee stays offline this long goes to someone online. */
  routingReassignAfterSeconds: number;
  /** INTAKE_TRANSACTIONS: the group commit's transactions under way at once per process (production; embedded runs one). */
  intakeTransactions: number;
}

/**
 * Whom to believe about the client's address. "none": the socket peer, always. "hops": that
 * many proxies in front append to X-Forwarded-For. "cidrs": peers (and forwarded entries)
 * inside these ranges are our proxies; the first address from the right outside them is the client.
 */
export type TrustProxy = { kind: "none" } | { kind: "hops"; hops: number } | { kind: "cidrs"; ranges: string[] };

/** Why: ten minutes covers a restart, a lost connection or a coffee; longer leaves a visitor waiting on someone who left. */
export const DEFAULT_ROUTING_REASSIGN_AFTER_S = 600;

/**
 * Why: one transaction at a time carries every batch handed over while the last one ran, about
 * twice as many messages as with three under way, for a tenth less CPU per message at the same
 * throughput on a 2-core machine (docs/decisions.md round 30). A machine with cores to spare
 * and a fast database may gain throughput from more, at that CPU's price.
 */
export const DEFAULT_INTAKE_TRANSACTIONS = 1;
/** Why: past a few, a transaction beside the others only starts with a smaller batch (rounds 5–7: four no better than three). */
const MAX_INTAKE_TRANSACTIONS = 8;

export class ConfigError extends Error {}

/** Requests allowed per window; each has its own environment variable (README). */
export interface RateLimitSettings {
  /** POST /api/messages, form plugin, widget config and history: per client IP, per minute. */
  publicPerIp: number;
  /** The same public endpoints: per bot, per minute (a widget on a busy site shares it). */
  publicPerBot: number;
  /** Login attempts per e-mail per 15 minutes: slows password guessing on one account. */
  loginPerEmail: number;
  /** Login attempts per IP per 15 minutes: slows guessing across accounts. */
  loginPerIp: number;
  /** Messages a bot may send per second (Telegram allows about 30). */
  botSendPerSecond: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  publicPerIp: 120,
  publicPerBot: 3000,
  loginPerEmail: 10,
  loginPerIp: 100,
  botSendPerSecond: 30,
};

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** A week: long enough for an operator's working week, short enough that a leaked token dies. */
const DEFAULT_JWT_TTL_SECONDS = 7 * 24 * 3600;

/** HS256 keys shorter than this are guessable; refuse them in production. */
const MIN_JWT_SECRET_LENGTH = 32;

function parsePort(raw: string | undefined, name = "PORT"): number {
  if (raw === undefined || raw === "") return 3000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${name} must be an integer 0..65535, got "${raw}"`);
  }
  return port;
}

function parseFlag(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "on", "yes"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "off", "no"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be one of 1/0, true/false, on/off; got "${raw}"`);
}

function parseUrl(name: string, raw: string | undefined, protocols: string[]): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(" or ")}, got "${url.protocol}"`);
  }
  return raw;
}

/** More proxies than this in front of one service is a misconfiguration, not a topology. */
const MAX_TRUSTED_HOPS = 10;

function parseTrustProxy(raw: string | undefined): TrustProxy {
  if (raw === undefined || raw === "" || ["0", "false", "off", "no"].includes(raw.toLowerCase())) return { kind: "none" };
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > MAX_TRUSTED_HOPS) throw new ConfigError(`TRUST_PROXY hop count must be 0..${MAX_TRUSTED_HOPS}, got "${raw}"`);
    return { kind: "hops", hops };
  }
  const ranges = raw.split(",").map((r) => r.trim()).filter(Boolean);
  for (const range of ranges) {
    const [address = "", prefix, extra] = range.split("/");
    const maxBits = isIPv4(address) ? 32 : 128;
    if (!isIP(address) || extra !== undefined || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxBits))) {
      throw new ConfigError(`TRUST_PROXY must be a hop count or a comma-separated list of IP addresses/CIDR ranges; "${range}" is neither`);
    }
  }
  return { kind: "cidrs", ranges };
}

function parsePositiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

function parseIntakeTransactions(raw: string | undefined): number {
  const n = parsePositiveInt("INTAKE_TRANSACTIONS", raw, DEFAULT_INTAKE_TRANSACTIONS);
  if (n > MAX_INTAKE_TRANSACTIONS) throw new ConfigError(`INTAKE_TRANSACTIONS must be at most ${MAX_INTAKE_TRANSACTIONS}, got "${raw}"`);
  return n;
}

/** Push services require an https: URL or a mailto: address identifying the sender. */
function parsePushContact(raw: string | undefined, publicUrl: string): string {
  if (raw) {
    if (!/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(raw)) throw new ConfigError(`PUSH_CONTACT must be a mailto: address or an https: URL, got "${raw}"`);
    return raw;
  }
  const url = new URL(publicUrl);
  return url.protocol === "https:" ? url.origin : `mailto:operator@${url.hostname}`;
}

/** Stream and bucket names allow only these characters; the prefix becomes part of them. */
const NATS_PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

function parseNatsPrefix(raw: string | undefined): string {
  if (raw === undefined || raw === "") return "";
  if (!NATS_PREFIX_PATTERN.test(raw)) throw new ConfigError(`NATS_PREFIX must be 1..32 letters, digits, "_" or "-"; got "${raw}"`);
  return raw;
}

function parseReplicas(raw: string | undefined): 1 | 3 {
  if (raw === undefined || raw === "" || raw === "1") return 1;
  if (raw === "3") return 3;
  throw new ConfigError(`NATS_REPLICAS must be 1 or 3 (a 3-node JetStream cluster); got "${raw}"`);
}

/** `Name <address>` or a bare address; by default no-reply at the public host. */
function parseMailFrom(raw: string | undefined, publicUrl: string): string {
  if (raw === undefined || raw === "") return `botinbox <no-reply@${new URL(publicUrl).hostname}>`;
  if (!/^(\s*[^<>]*<[^<>@\s]+@[^<>@\s]+>\s*|[^<>@\s]+@[^<>@\s]+)$/.test(raw)) {
    throw new ConfigError(`MAIL_FROM must be an address or "Name <address>", got "${raw}"`);
  }
  return raw.trim();
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const databaseUrl = parseUrl("DATABASE_URL", env.DATABASE_URL, ["postgres:", "postgresql:"]);
  // A cluster is named by several seed URLs, comma-separated; each must be valid.
  for (const seed of (env.NATS_URL ?? "").split(",").slice(1)) parseUrl("NATS_URL", seed.trim(), ["nats:", "tls:"]);
  const natsUrl = parseUrl("NATS_URL", env.NATS_URL?.split(",")[0]?.trim(), ["nats:", "tls:"]) && env.NATS_URL;
  if (Boolean(databaseUrl) !== Boolean(natsUrl)) {
    throw new ConfigError("DATABASE_URL and NATS_URL go together: set both (production) or neither (embedded)");
  }
  const mode: Mode = databaseUrl ? "production" : "embedded";
  const port = parsePort(env.PORT);
  const logLevel = env.LOG_LEVEL || "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}; got "${logLevel}"`);
  }
  const jwtSecret = env.JWT_SECRET || undefined;
  if (mode === "production" && !jwtSecret) {
    throw new ConfigError("JWT_SECRET is required when DATABASE_URL is set (production mode)");
  }
  if (jwtSecret !== undefined && jwtSecret.length < MIN_JWT_SECRET_LENGTH) {
    throw new ConfigError(`JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters`);
  }
  const rateLimits = env.RATE_LIMITS === undefined || env.RATE_LIMITS === "" ? true : parseFlag("RATE_LIMITS", env.RATE_LIMITS, true);
  const publicUrl = parseUrl("PUBLIC_URL", env.PUBLIC_URL, ["http:", "https:"]) ?? `http://localhost:${port || 3000}`;
  return {
    mode,
    port,
    host: env.HOST || "0.0.0.0",
    dataDir: env.DATA_DIR || "./data",
    databaseUrl,
    natsUrl,
    jwtSecret,
    publicUrl: publicUrl.replace(/\/+$/, ""),
    allowPrivateWebhooks: parseFlag("ALLOW_PRIVATE_WEBHOOKS", env.ALLOW_PRIVATE_WEBHOOKS, false),
    logLevel,
    logPretty: parseFlag("LOG_PRETTY", env.LOG_PRETTY, false),
    rateLimits,
    limits: {
      publicPerIp: parsePositiveInt("RATE_LIMIT_PUBLIC_PER_IP", env.RATE_LIMIT_PUBLIC_PER_IP, DEFAULT_RATE_LIMITS.publicPerIp),
      publicPerBot: parsePositiveInt("RATE_LIMIT_PUBLIC_PER_BOT", env.RATE_LIMIT_PUBLIC_PER_BOT, DEFAULT_RATE_LIMITS.publicPerBot),
      loginPerEmail: parsePositiveInt("RATE_LIMIT_LOGIN_PER_EMAIL", env.RATE_LIMIT_LOGIN_PER_EMAIL, DEFAULT_RATE_LIMITS.loginPerEmail),
      loginPerIp: parsePositiveInt("RATE_LIMIT_LOGIN_PER_IP", env.RATE_LIMIT_LOGIN_PER_IP, DEFAULT_RATE_LIMITS.loginPerIp),
      botSendPerSecond: parsePositiveInt("RATE_LIMIT_BOT_SEND_PER_SECOND", env.RATE_LIMIT_BOT_SEND_PER_SECOND, DEFAULT_RATE_LIMITS.botSendPerSecond),
    },
    pushContact: parsePushContact(env.PUSH_CONTACT, publicUrl),
    jwtTtlSeconds: parsePositiveInt("JWT_TTL_SECONDS", env.JWT_TTL_SECONDS, DEFAULT_JWT_TTL_SECONDS),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    natsPrefix: parseNatsPrefix(env.NATS_PREFIX),
    natsReplicas: parseReplicas(env.NATS_REPLICAS),
    metricsPort: env.METRICS_PORT ? parsePort(env.METRICS_PORT, "METRICS_PORT") : undefined,
    smtpUrl: parseUrl("SMTP_URL", env.SMTP_URL, ["smtp:", "smtps:"]),
    mailFrom: parseMailFrom(env.MAIL_FROM, publicUrl),
    routingReassignAfterSeconds: parsePositiveInt("ROUTING_REASSIGN_AFTER_S", env.ROUTING_REASSIGN_AFTER_S, DEFAULT_ROUTING_REASSIGN_AFTER_S),
    intakeTransactions: parseIntakeTransactions(env.INTAKE_TRANSACTIONS),
  };
}
