import { feature } from "../feature.ts";
import { Elysia, t } from "elysia";
import type { Services } from "../../services.ts";
import { withExample } from "../envelope.ts";

const Health = t.Object({ ok: t.Boolean(), result: t.Object({ status: t.String() }) });
const health = (description: string, ok: boolean, status: string) => withExample({ ...Health, description }, { ok, result: { status } });

/** Liveness and readiness for load balancers and the Procfile's supervisor. */
export const systemRoutes = (services: Services, isDraining: () => boolean) =>
  feature({ tags: ["System"] })
    .get("/healthz", () => ({ ok: true, result: { status: "serving" } }), {
      response: { 200: health("The process is up and serving HTTP", true, "serving") },
      detail: { summary: "200 once the process serves", description: "Liveness: answers without touching the database or NATS, so a slow dependency never gets the process restarted." },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        const { database, nats } = await services.system.health();
        const down = [database ? "" : "database", nats ? "" : "NATS"].filter(Boolean);
        const status = isDraining() ? "draining" : down.length ? `${down.join(" and ")} unavailable` : "ready";
        const ready = status === "ready";
        if (!ready) set.status = 503;
        return { ok: ready, result: { status } };
      },
      {
        response: {
          200: health("The database (and NATS) answered within a second", true, "ready"),
          503: health("A dependency is unreachable or the process is draining: send traffic elsewhere", false, "NATS unavailable"),
        },
        detail: { summary: "200 while the database (and NATS, when configured) answer, else 503", description: "Readiness for load balancers: status names what is missing, or says draining after SIGTERM." },
      },
    )
    .get(
      "/metrics",
      async ({ set }) => {
        set.headers["content-type"] = services.system.metrics.contentType;
        return services.system.metrics.text();
      },
      {
        response: {
          200: withExample(t.String({ description: "Prometheus text exposition format" }), "# TYPE botinbox_messages_accepted_total counter\nbotinbox_messages_accepted_total 42\n"),
        },
        detail: {
          summary: "Prometheus metrics (text exposition format)",
          description: "Request counts and latencies (seconds) by route pattern, accepted messages, pending updates, outbox size, webhook deliveries by outcome, and process memory and CPU. Worker processes serve the same on METRICS_PORT.",
        },
      },
    );
