// Prometheus metrics through prom-client (the well-kept client; no hand-written exposition
// format). One registry per platform, so the platforms a test opens side by side do not add
// into each other's counters; the process-wide defaults (memory, CPU, event loop) only for a
// real process.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Why: from a cache hit (~1 ms) to a long poll's 50 s, enough buckets to tell them apart. */
const DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface GaugeSources {
  /** Rows waiting in the outbox to be published to the update log. */
  outboxSize(): Promise<number>;
  /** Updates stored in the log and not yet confirmed or expired, every bot together. */
  pendingUpdates(): Promise<number>;
}

export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: "botinbox_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: "botinbox_http_request_duration_seconds",
    help: "Time from request to response, by method and route pattern (long polls included)",
    labelNames: ["method", "route"] as const,
    buckets: DURATION_BUCKETS_SECONDS,
    registers: [this.registry],
  });
  readonly messagesAccepted = new Counter({
    name: "botinbox_messages_accepted_total",
    help: "Visitor messages accepted (committed), from every channel",
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: "botinbox_webhook_deliveries_total",
    help: "Webhook and channel-callback requests made, by kind and outcome (ok: a 2xx answer)",
    labelNames: ["kind", "outcome"] as const,
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: "botinbox_process_" });
  }

  /** Gauges read when scraped, so an idle process does no work for them. */
  watch(sources: GaugeSources): void {
    const orZero = (read: () => Promise<number>) => read().catch(() => 0);
    new Gauge({
      name: "botinbox_outbox_size",
      help: "Committed updates not yet published to the update log",
      registers: [this.registry],
      async collect() {
        this.set(await orZero(sources.outboxSize));
      },
    });
    new Gauge({
      name: "botinbox_updates_pending",
      help: "Updates in the log not yet confirmed (get-updates offset or webhook 2xx) nor expired",
      registers: [this.registry],
      async collect() {
        this.set(await orZero(sources.pendingUpdates));
      },
    });
  }

  /** Prometheus text exposition format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
