import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

export type { Logger };

/** JSON lines by default (what log shippers read); pretty only when LOG_PRETTY asks. */
export function createLogger(config: Pick<Config, "logLevel" | "logPretty">): Logger {
  return pino({
    level: config.logLevel,
    transport: config.logPretty ? { target: "pino-pretty", options: { colorize: true } } : undefined,
  });
}
