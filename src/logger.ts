import { createRequire } from "node:module";
import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

export type { Logger };

/**
 * pino-pretty is an optional dependency: `npm ci --omit=dev` installs it, `--omit=optional`
 * leaves it out (a lean image). LOG_PRETTY without it still logs, as JSON, and says why.
 */
function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve("pino-pretty");
    return true;
  } catch {
    return false;
  }
}

/**
 * Keys whose values are secrets wherever they appear in a logged object: a logged request
 * body or error must never carry a password or token into a log shipper.
 */
const REDACTED_PATHS = [
  "password", "token", "secret", "authorization", "jwt", "*.password", "*.token", "*.secret", "*.authorization",
  "*.jwt", "*.headers.authorization", "*.headers.cookie",
];

/** JSON lines by default (what log shippers read); pretty only when LOG_PRETTY asks. */
export function createLogger(config: Pick<Config, "logLevel" | "logPretty">, destination?: pino.DestinationStream): Logger {
  const pretty = config.logPretty && !destination && prettyAvailable();
  const logger = pino({
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    transport: pretty ? { target: "pino-pretty", options: { colorize: true } } : undefined,
  }, destination);
  if (config.logPretty && !pretty && !destination) {
    logger.warn("LOG_PRETTY is set but pino-pretty is not installed (npm ci --omit=optional?); logging JSON lines instead");
  }
  return logger;
}
