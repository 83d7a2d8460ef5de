// The cabinet and the widget take the server's wire types with type-only imports: the only
// server modules whose code may reach a browser bundle are src/core's (no I/O). A value
// import from an http model would pull Elysia and TypeBox into the page.
import { describe, expect, test } from "bun:test";
import { dirname, relative, resolve } from "node:path";
import { BROWSER_JSX, SCRIPT_ENTRIES, WEB_DIR } from "../../src/http/web/assets.ts";

const SRC_DIR = resolve(WEB_DIR, "../src");

/** Every module the bundler reads for an entry, as a path from the repository root. */
async function bundledModules(entry: string): Promise<string[]> {
  const seen = new Set<string>();
  const result = await Bun.build({
    entrypoints: [entry],
    target: "browser",
    jsx: BROWSER_JSX,
    plugins: [{
      name: "record",
      setup(build) {
        build.onResolve({ filter: /.*/ }, (args) => {
          if (args.path.startsWith(".")) seen.add(relative(resolve(WEB_DIR, ".."), resolve(dirname(args.importer), args.path)));
          else seen.add(args.path);
          return undefined;
        });
      },
    }],
  });
  expect(result.success).toBe(true);
  return [...seen];
}

describe("browser bundles", () => {
  for (const name of ["cabinet", "widget"] as const) {
    test(`${name}.js reads no server module outside src/core`, async () => {
      const modules = await bundledModules(SCRIPT_ENTRIES[name]);
      const server = modules.filter((m) => m.startsWith(`${relative(resolve(WEB_DIR, ".."), SRC_DIR)}/`));
      expect(server.filter((m) => !m.startsWith("src/core/"))).toEqual([]);
      expect(modules.filter((m) => /^(elysia|@sinclair\/typebox|postgres|nats|pino)\b/.test(m))).toEqual([]);
    });
  }

  test("the check sees a value import from an http model", async () => {
    const probe = resolve(WEB_DIR, "cabinet/zz-probe.ts");
    await Bun.write(probe, 'import { MIN_PASSWORD_LENGTH } from "../../src/http/auth/model.ts";\nconsole.log(MIN_PASSWORD_LENGTH);\n');
    try {
      expect(await bundledModules(probe)).toContain("src/http/auth/model.ts");
    } finally {
      await Bun.file(probe).delete();
    }
  });

  test("the chart library stays out of cabinet.js: only the Reports page's charts.js carries it", async () => {
    expect((await bundledModules(SCRIPT_ENTRIES.cabinet)).filter((m) => m.includes("uplot"))).toEqual([]);
    expect(await bundledModules(SCRIPT_ENTRIES.charts)).toContain("uplot");
    const cabinet = await Bun.build({ entrypoints: [SCRIPT_ENTRIES.cabinet], target: "browser", minify: true, jsx: BROWSER_JSX });
    expect(await cabinet.outputs[0]!.text()).not.toContain("u-legend");
  });
});
