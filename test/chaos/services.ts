// Chaos harness, services: private NATS (JetStream) and PostgreSQL instances on their own
// ports and temp dirs, never the machine's shared 5432/4222, stopped and restarted on purpose.
import { chownSync, copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, logPath, onCleanup, Proc, tempDir, waitFor } from "./process.ts";

export const PG_BIN = "/usr/lib/postgresql/15/bin";
export const NATS_SERVER = "/usr/sbin/nats-server";

export const HAVE_SERVICES = [NATS_SERVER, join(PG_BIN, "initdb"), join(PG_BIN, "pg_ctl"), "/usr/sbin/runuser", "/usr/bin/setsid"].every(existsSync);

// --- private NATS --------------------------------------------------------------------------

export class PrivateNats {
  readonly port = freePort();
  readonly dir = tempDir("nats");
  readonly url = `nats://127.0.0.1:${this.port}`;
  readonly proc: Proc;

  /** `scenario` prefixes the log file, so one scenario's logs do not overwrite another's. */
  constructor(scenario: string) {
    const argv = [NATS_SERVER, "-a", "127.0.0.1", "-p", String(this.port), "-js", "-sd", join(this.dir, "js")];
    this.proc = new Proc(`${scenario}.nats`, argv, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
  }

  async start(): Promise<void> {
    this.proc.start();
    await waitFor(`NATS on ${this.port}`, () => tcpOpen(this.port), 15_000, () => this.proc.tail());
  }

  /** SIGTERM: an orderly outage, so what NATS acknowledged is on disk when it comes back. */
  stop(): Promise<void> {
    return this.proc.kill("SIGTERM");
  }
}

async function tcpOpen(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

// --- private PostgreSQL --------------------------------------------------------------------

const asPostgres = (args: string[]) => ["runuser", "-u", "postgres", "--", ...args];

async function run(argv: string[], what: string): Promise<string> {
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C" } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${what} failed (${code}): ${out}\n${err}`);
  return out;
}

export class PrivatePostgres {
  readonly port = freePort();
  readonly dir = tempDir("pg");
  readonly data = join(this.dir, "data");
  readonly logFile = join(this.dir, "postgres.log");
  readonly url = `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  /** fsync off: only the server process restarts here, never the machine, and the disk is shared. */
  constructor(private readonly scenario: string) {}

  private readonly options = `-c port=${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c fsync=off -c max_connections=200`;

  async start(): Promise<void> {
    const { uid, gid } = postgresIds();
    chownSync(this.dir, uid, gid);
    writeFileSync(this.logFile, "");
    chownSync(this.logFile, uid, gid);
    onCleanup(() => this.destroy());
    await run(asPostgres([join(PG_BIN, "initdb"), "-D", this.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]), "initdb");
    await this.pgCtl("start");
  }

  /** `pg_ctl restart -m fast`: every connection is cut, the server is back within a second. */
  restart(): Promise<void> {
    return this.pgCtl("restart");
  }

  private async pgCtl(action: "start" | "restart"): Promise<void> {
    const args = [join(PG_BIN, "pg_ctl"), "-D", this.data, "-l", this.logFile, "-w", "-t", "30", "-m", "fast", "-o", this.options, action];
    await run(asPostgres(args), `pg_ctl ${action}`);
  }

  private async destroy(): Promise<void> {
    if (existsSync(this.logFile)) copyFileSync(this.logFile, logPath(`${this.scenario}.postgres.log`));
    await run(asPostgres([join(PG_BIN, "pg_ctl"), "-D", this.data, "-m", "immediate", "-w", "stop"]), "pg_ctl stop").catch(() => undefined);
    // A postmaster pg_ctl could not stop (it timed out) must not outlive the run.
    try {
      const pid = Number(readFileSync(join(this.data, "postmaster.pid"), "utf8").split("\n")[0]);
      if (pid > 0) process.kill(pid, "SIGKILL");
    } catch {}
  }
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("no postgres user");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}


// --- private 3-node NATS cluster -----------------------------------------------------------

/**
 * Three JetStream servers routed to each other on loopback ports, each with its own store: the
 * smallest cluster on which R3 streams survive losing a node. `url` lists all three seeds.
 */
export class NatsCluster {
  readonly nodes: Array<{ name: string; port: number; routePort: number; proc: Proc }> = [];
  readonly url: string;

  constructor(scenario: string) {
    const dir = tempDir("nats-cluster");
    const ports = [0, 1, 2].map(() => ({ port: freePort(), routePort: freePort() }));
    const routes = ports.map((p) => `nats://127.0.0.1:${p.routePort}`);
    for (const [i, { port, routePort }] of ports.entries()) {
      const name = `n${i + 1}`;
      const argv = [
        NATS_SERVER, "-a", "127.0.0.1", "-p", String(port), "-n", name, "-js", "-sd", join(dir, name),
        "--cluster_name", "botinbox-test", "--cluster", routes[i]!, "--routes", routes.filter((_, j) => j !== i).join(","),
      ];
      this.nodes.push({ name, port, routePort, proc: new Proc(`${scenario}.${name}`, argv, { PATH: process.env.PATH ?? "/usr/bin:/bin" }) });
    }
    this.url = ports.map((p) => `nats://127.0.0.1:${p.port}`).join(",");
  }

  async start(): Promise<void> {
    for (const node of this.nodes) node.proc.start();
    for (const node of this.nodes) await waitFor(`NATS ${node.name} on ${node.port}`, () => tcpOpen(node.port), 15_000, () => node.proc.tail());
  }

  node(name: string) {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no NATS node ${name}`);
    return node;
  }

  /** Starts a stopped node again on its port and store. */
  async restart(name: string): Promise<void> {
    const node = this.node(name);
    node.proc.start();
    await waitFor(`NATS ${name} back on ${node.port}`, () => tcpOpen(node.port), 15_000, () => node.proc.tail());
  }
}
