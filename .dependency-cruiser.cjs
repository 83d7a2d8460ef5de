// The layer rule, checked by test/architecture/layers.test.ts in every `npm test`:
//
//   entry points → http, workers → telegram → domain → actors → ports (bus, updates, leases) and db → core
//
// A module may import its own layer and the layers to its right, never one to its left.
// Only entry points (src/*.ts that start a process) import http/; nothing below http/
// imports Elysia. LAYERS lists each layer's folders, highest first; the order is the rule.
/** @typedef {{ name: string, paths: string[] }} Layer */

/** @type {Layer[]} */
const LAYERS = [
  { name: "http", paths: ["src/http/"] },
  { name: "workers", paths: ["src/webhooks/worker\\.ts", "src/push/worker\\.ts"] },
  { name: "actors", paths: ["actors/"] },
  { name: "ports", paths: ["src/bus/", "src/updates/", "src/leases/"] },
  { name: "db", paths: ["src/db/"] },
  { name: "core", paths: ["src/core/"] },
];

// Backward imports the tree still has; each move removes its entries, the goal is none.
const KNOWN_BACKWARD = [
  "src/webhooks/service\\.ts",
  "src/webhooks/telegram\\.ts",
];

const anyOf = (paths) => `^(${paths.join("|")})`;

/** Layer i may not import any layer above it (a lower index), except its own folders. */
const layerRules = LAYERS.slice(1).map((layer, i) => {
  const own = anyOf(layer.paths);
  const above = LAYERS.slice(0, i + 1).flatMap((l) => l.paths);
  return {
    name: `layer-${layer.name}`,
    comment: `${layer.name} may import only the layers below it (${LAYERS.slice(i + 2).map((l) => l.name).join(", ") || "none"})`,
    severity: "error",
    from: { path: own, pathNot: anyOf(KNOWN_BACKWARD) },
    to: { path: anyOf(above), pathNot: own },
  };
});

module.exports = {
  LAYERS,
  forbidden: [
    ...layerRules,
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
      from: { pathNot: [`^src/[^/]+\\.ts$`, "^src/http/", "^test/", "^bench/", anyOf(KNOWN_BACKWARD)] },
      to: { path: "^src/http/" },
    },
    {
      name: "no-elysia-below-http",
      comment: "Elysia belongs to the HTTP front; the layers below it are plain TypeScript",
      severity: "error",
      from: { path: "^(src|actors)/", pathNot: [`^src/[^/]+\\.ts$`, "^src/http/"] },
      to: { path: "(^|/)node_modules/(elysia|@elysiajs)/" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^node_modules/" },
  },
};
