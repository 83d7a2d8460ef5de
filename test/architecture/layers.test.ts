// The layer rule of .dependency-cruiser.cjs, checked with dependency-cruiser over the real
// tree, and shown to catch a backward import in a throwaway tree built from the same rules.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseOptions, type IViolation } from "dependency-cruiser";
// @ts-expect-error: the rule file is CommonJS without types
import rules from "../../.dependency-cruiser.cjs";

const ROOT = join(import.meta.dir, "../..");

async function violations(baseDir: string, roots: string[]): Promise<string[]> {
  const options: ICruiseOptions = {
    ...rules.options,
    validate: true,
    ruleSet: { forbidden: rules.forbidden },
    baseDir,
  };
  const result = await cruise(roots, options);
  if (typeof result.output === "string") throw new Error("unexpected string output");
  return result.output.summary.violations.map((v: IViolation) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

describe("layers", () => {
  test("no module imports a layer above its own", async () => {
    const found = await violations(ROOT, ["src"]);
    // The message names both files of every backward import.
    expect(found, `backward imports:\n${found.join("\n")}`).toEqual([]);
  });

  test("a deliberately wrong import is caught, naming both files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "layers-"));
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      };
      write("src/http/app.ts", "export const app = 1;\n");
      write("src/db/bad.ts", 'import { app } from "../http/app.ts";\nexport const bad = app;\n');
      write("src/db/good.ts", "export const good = 1;\n");
      const found = await violations(dir, ["src"]);
      expect(found).toContain("only-entry-points-import-http: src/db/bad.ts → src/http/app.ts");
      expect(found).toContain("layer-db: src/db/bad.ts → src/http/app.ts");
      expect(found.filter((v) => v.includes("good.ts"))).toEqual([]);
      // A worker entry point that reaches the HTTP front through another module is caught too.
      write("src/webhook.ts", 'import { bad } from "./db/bad.ts";\nexport const entry = bad;\n');
      const reached = await violations(dir, ["src"]);
      expect(reached).toContain("worker-processes-never-load-http: src/webhook.ts → src/http/app.ts");
      // The HTTP front and the workers reach storage and messaging only through services.
      write("src/db/users.ts", "export const findUser = () => 1;\n");
      write("src/bus/bus.ts", "export const publish = () => 1;\n");
      write("src/http/routes.ts", 'import { findUser } from "../db/users.ts";\nexport const route = findUser;\n');
      write("src/workers/push.ts", 'import type { publish } from "../bus/bus.ts";\nexport type P = typeof publish;\n');
      const transport = await violations(dir, ["src"]);
      expect(transport).toContain("http-and-workers-call-services: src/http/routes.ts → src/db/users.ts");
      expect(transport).toContain("http-and-workers-call-services: src/workers/push.ts → src/bus/bus.ts");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
