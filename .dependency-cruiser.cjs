// The layer rule, checked by test/architecture/layers.test.ts in every `npm test`:
//
//   entry points → http, workers → telegram → domain → actors (+ delivery) → ports (bus, updates, leases, queue, outbox) and db → core
//
// A module may import its own layer and the layers to its right, never one to its left.
// Only entry points (src/*.ts that start a process) import http/; nothing below http/
// imports Elysia. LAYERS lists each layer's folders, highest first; the order is the rule.
/** @typedef {{ name: string, paths: string[] }} Layer */

/** @type {Layer[]} */
const LAYERS = [
  { name: "http", paths: ["src/http/"] },
  { name: "workers", paths: ["src/workers/"] },
  { name: "telegram", paths: ["src/telegram/"] },
  { name: "domain", paths: ["src/domain/"] },
  { name: "actors", paths: ["src/actors/", "src/delivery/"] },
  { name: "ports", paths: ["src/bus/", "src/updates/", "src/leases/", "src/queue/", "src/outbox/", "src/files/"] },
  { name: "db", paths: ["src/db/"] },
  { name: "core", paths: ["src/core/"] },
];

/** Process-wide helpers every layer may use: settings, the logger, the NATS connection's health. */
const SHARED = ["src/config\\.ts", "src/metrics\\.ts", "src/logger\\.ts", "src/nats\\.ts", "src/secrets\\.ts", "src/ratelimit\\.ts", "src/file-links\\.ts"];

const anyOf = (paths) => `^(${paths.join("|")})`;

/** Layer i may not import any layer above it (a lower index), except its own folders. */
const layerRules = LAYERS.slice(1).map((layer, i) => {
  const own = anyOf(layer.paths);
  const above = LAYERS.slice(0, i + 1).flatMap((l) => l.paths);
  return {
    name: `layer-${layer.name}`,
    comment: `${layer.name} may import only the layers below it (${LAYERS.slice(i + 2).map((l) => l.name).join(", ") || "none"})`,
    severity: "error",
    from: { path: own },
    to: { path: anyOf(above), pathNot: own },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "http-and-workers-call-services",
      comment:
        "src/http and src/workers are transport: they call the services src/services.ts composes and never reach the " +
        "database, NATS, the event bus, actors, the outbox or the update log (nor the platform that opens them) themselves",
      severity: "error",
      from: { path: "^src/(http|workers)/" },
      to: { path: ["^src/(db|bus|actors|outbox|updates)/", "^src/(nats|platform)\\.ts$", "(^|/)node_modules/nats/"] },
    },
    {
      name: "core-is-pure",
      comment: "core holds records, kinds, subjects, limits and errors: it imports only core (no packages, no I/O)",
      severity: "error",
      from: { path: "^src/core/" },
      to: { pathNot: "^src/core/" },
    },
    {
      name: "only-entry-points-import-http",
      comment: "src/http/ is the HTTP front; only the process entry points (src/*.ts) may load it",
      severity: "error",
      from: { pathNot: [`^src/[^/]+\\.ts$`, "^src/http/", "^test/", "^bench/"] },
      to: { path: "^src/http/" },
    },
    {
      name: "layers-do-not-import-entry-points",
      comment: "src/*.ts are the entry points and the composition (platform, server); below http and workers, modules get what they need handed in",
      severity: "error",
      from: { path: anyOf(LAYERS.slice(2).flatMap((l) => l.paths)) },
      to: { path: `^src/[^/]+\\.ts$`, pathNot: anyOf(SHARED) },
    },
    {
      name: "worker-processes-never-load-http",
      comment: "the webhook, push and mail processes run no HTTP front: nothing they load reaches src/http/ or Elysia",
      severity: "error",
      from: { path: "^src/(webhook|push|mail)\\.ts$" },
      to: { path: ["^src/http/", "(^|/)node_modules/(elysia|@elysiajs)/"], reachable: true },
    },
    {
      name: "no-elysia-below-http",
      comment: "Elysia belongs to the HTTP front; the layers below it are plain TypeScript",
      severity: "error",
      from: { path: "^src/", pathNot: [`^src/[^/]+\\.ts$`, "^src/http/"] },
      to: { path: "(^|/)node_modules/(elysia|@elysiajs)/" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^node_modules/" },
  },
};
