// Real mail servers for the mail tests, each on a loopback port of its own: Dovecot (Debian's
// dovecot-imapd) with a private config and one passwd-file user, and an SMTP server (the
// smtp-server library) that keeps what it receives.
import { describe, test } from "bun:test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { freePort } from "../support/ports.ts";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { ImapFlow } from "imapflow";
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";

export const DOVECOT = "/usr/sbin/dovecot";
/** Outside CI a machine without Dovecot skips the mail tests; CI installs it (.ci/run) and runs them. */
export const hasDovecot = existsSync(DOVECOT);

/** describe() for tests that need Dovecot: skipped without it, except in CI, where its absence fails. */
export function describeMail(name: string, fn: () => void): void {
  if (hasDovecot) return describe(name, fn);
  if (process.env.CI) return describe(name, () => test("dovecot-imapd is installed", () => {
    throw new Error(`${DOVECOT} is missing: .ci/run installs dovecot-imapd`);
  }));
  describe.skip(`${name} (dovecot-imapd not installed)`, fn);
}

export { freePort };

export interface Dovecot {
  port: number;
  /** The first mailbox's login. */
  user: string;
  password: string;
  /** Another mailbox of its own (each bot in a test reads its own). */
  newMailbox(): { user: string; password: string };
  /** Puts a raw RFC 822 message into a user's INBOX (IMAP APPEND, as a delivery agent would). */
  deliver(raw: string, user?: string): Promise<void>;
  stop(): Promise<void>;
}

/** Why: mailboxes a test file may use; passwd-file is read at start, so they exist up front. */
const MAILBOXES = 40;

export async function startDovecot(): Promise<Dovecot> {
  const dir = mkdtempSync(join(tmpdir(), "botinbox-dovecot-"));
  chmodSync(dir, 0o755);
  const port = freePort();
  const users = Array.from({ length: MAILBOXES }, (_, i) => ({ user: `box${i}`, password: `pw-${i}-${Math.random().toString(36).slice(2)}` }));
  const { user, password } = users[0]!;
  // Dovecot refuses to run its login and mail processes as root: as root (CI), they run as
  // Debian's dovecot/dovenull users; as anyone else, everything runs as that user.
  const asRoot = userInfo().uid === 0;
  const id = (args: string[]) => spawnSync("id", args).stdout.toString().trim();
  const mailUser = asRoot ? "dovecot" : id(["-un"]);
  const loginUser = asRoot ? "dovenull" : mailUser;
  const uid = Number(id(["-u", mailUser]));
  const gid = Number(id(["-g", mailUser]));
  for (const u of users) mkdirSync(join(dir, "mail", u.user), { recursive: true });
  if (asRoot) spawnSync("chown", ["-R", `${uid}:${gid}`, join(dir, "mail")]);
  mkdirSync(join(dir, "run"), { recursive: true });
  writeFileSync(join(dir, "passwd"), users.map((u) => `${u.user}:{PLAIN}${u.password}:${uid}:${gid}::${join(dir, "mail", u.user)}\n`).join(""));
  writeFileSync(join(dir, "dovecot.conf"), `
protocols = imap
listen = 127.0.0.1
base_dir = ${join(dir, "run")}
state_dir = ${join(dir, "state")}
instance_name = botinbox-test-${port}
log_path = ${join(dir, "dovecot.log")}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = ${mailUser}
default_login_user = ${loginUser}
first_valid_uid = ${uid}
mail_location = maildir:~/Maildir
passdb {
  driver = passwd-file
  args = ${join(dir, "passwd")}
}
userdb {
  driver = passwd-file
  args = ${join(dir, "passwd")}
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
protocol imap {
  imap_idle_notify_interval = 1 secs
}
`);
  mkdirSync(join(dir, "state"), { recursive: true });
  const child: ChildProcess = spawn(DOVECOT, ["-F", "-c", join(dir, "dovecot.conf")], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new ImapFlow({ host: "127.0.0.1", port, secure: false, auth: { user, pass: password }, logger: false });
    try {
      await client.connect();
      await client.logout();
      break;
    } catch (err) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill("SIGKILL");
        const log = spawnSync("cat", [join(dir, "dovecot.log")]).stdout?.toString() ?? "";
        throw new Error(`dovecot did not start: ${(err as Error).message}\n${output}\n${log}`);
      }
      await Bun.sleep(100);
    }
  }
  const appenders = new Map<string, ImapFlow>();
  let handedOut = 0;
  return {
    port,
    user,
    password,
    newMailbox() {
      const u = users[++handedOut];
      if (!u) throw new Error(`only ${MAILBOXES} test mailboxes`);
      return u;
    },
    async deliver(raw, login = user) {
      let appender = appenders.get(login);
      if (!appender || !appender.usable) {
        const pass = users.find((u) => u.user === login)!.password;
        appender = new ImapFlow({ host: "127.0.0.1", port, secure: false, auth: { user: login, pass }, logger: false });
        await appender.connect();
        appenders.set(login, appender);
      }
      await appender.append("INBOX", raw);
    },
    async stop() {
      for (const a of appenders.values()) await a.logout().catch(() => undefined);
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once("exit", r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpSink {
  port: number;
  received: CapturedMail[];
  /** The next mails are refused with this SMTP reply (permanent 5xx or temporary 4xx) until cleared. */
  refuseWith: { code: number; message: string } | null;
  waitFor(count: number, timeoutMs?: number): Promise<CapturedMail[]>;
  stop(): Promise<void>;
}

export async function startSmtpSink(auth?: { user: string; password: string }): Promise<SmtpSink> {
  const port = freePort();
  const received: CapturedMail[] = [];
  const sink: SmtpSink = {
    port,
    received,
    refuseWith: null,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`SMTP server got ${received.length} of ${count} mails`);
        await Bun.sleep(50);
      }
      return received;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(a, _session, callback) {
      if (auth && a.username === auth.user && a.password === auth.password) return callback(null, { user: a.username });
      return callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        if (sink.refuseWith) {
          const err = new Error(sink.refuseWith.message) as Error & { responseCode: number };
          err.responseCode = sink.refuseWith.code;
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          parsed: await simpleParser(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return sink;
}
