// Which requests count against which limit. The counters are the process's RateLimiter;
// the numbers are RATE_LIMIT_* settings (config.ts) or the named constants here.
import type { RateLimitSettings } from "../config.ts";
import { LOGIN_WINDOW_MS, MINUTE_MS, type RateLimiter } from "../ratelimit.ts";

/** Why: the cabinet sends a typing notice every few seconds while typing; more is a loop or abuse. */
export const MAX_TYPING_PER_MINUTE = 60;
/** Why: a person needs a few tries at most; more from one address or IP is someone mail-bombing an inbox. */
export const RESET_PER_EMAIL = 5;
export const RESET_PER_IP = 20;
/** Why: the window of both reset limits; an hour, as long as a link lives. */
export const RESET_WINDOW_MS = 3600 * 1000;

export interface RequestLimits {
  /** A client's requests to the public endpoints (widget, API senders, form plugin). */
  publicClient(ip: string): void;
  /** A client's login attempts, counted on arrival (before the body is read). */
  loginClient(ip: string): void;
  /** A client's registrations, counted like logins. */
  registerClient(ip: string): void;
  /** Public requests naming one bot, from every client. */
  publicBot(botId: string): void;
  /** An operator's typing notices. */
  typing(userId: string): void;
  /** Password reset mails asked for, per client and per address (lower-cased). */
  passwordReset(ip: string, account: string): void;
}

export function requestLimits(limiter: RateLimiter, limits: RateLimitSettings): RequestLimits {
  return {
    publicClient: (ip) => limiter.take(`public-ip:${ip}`, limits.publicPerIp, MINUTE_MS),
    loginClient: (ip) => limiter.take(`login-ip:${ip}`, limits.loginPerIp, LOGIN_WINDOW_MS),
    registerClient: (ip) => limiter.take(`register-ip:${ip}`, limits.loginPerIp, LOGIN_WINDOW_MS),
    publicBot: (botId) => limiter.take(`public-bot:${botId}`, limits.publicPerBot, MINUTE_MS),
    typing: (userId) => limiter.take(`typing:${userId}`, MAX_TYPING_PER_MINUTE, MINUTE_MS),
    passwordReset: (ip, account) => {
      limiter.take(`reset-ip:${ip}`, RESET_PER_IP, RESET_WINDOW_MS);
      limiter.take(`reset-email:${account}`, RESET_PER_EMAIL, RESET_WINDOW_MS);
    },
  };
}
