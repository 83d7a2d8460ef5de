import { feature } from "../feature.ts";
import { Elysia, t } from "elysia";
import type { Platform } from "../../platform.ts";

const Health = t.Object({ ok: t.Boolean(), result: t.Object({ status: t.String() }) });

/** Liveness and readiness for load balancers and the Procfile's supervisor. */
export const systemRoutes = (platform: Platform, isDraining: () => boolean) =>
  feature({ tags: ["System"] })
    .get("/healthz", () => ({ ok: true, result: { status: "serving" } }), {
      response: { 200: Health },
      detail: { summary: "200 once the process serves" },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        const { database, nats } = await platform.health();
        const down = [database ? "" : "database", nats ? "" : "NATS"].filter(Boolean);
        const status = isDraining() ? "draining" : down.length ? `${down.join(" and ")} unavailable` : "ready";
        const ready = status === "ready";
        if (!ready) set.status = 503;
        return { ok: ready, result: { status } };
      },
      {
        response: { 200: Health, 503: Health },
        detail: { summary: "200 while the database (and NATS, when configured) answer, else 503" },
      },
    )
    .get(
      "/metrics",
      async ({ set }) => {
        set.headers["content-type"] = platform.metrics.contentType;
        return platform.metrics.text();
      },
      {
        response: { 200: t.String() },
        detail: { summary: "Prometheus metrics (text exposition format)" },
      },
    );
