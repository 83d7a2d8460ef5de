// Production's NATS parts, loaded by platform.ts only when NATS_URL is set: the embedded
// process never loads the nats client, whose modules stay resident (docs/decisions.md).
export { natsBus } from "./bus/nats.ts";
export { openJetStreamLog } from "./updates/jetstream.ts";
export { connectNats, onceJetStreamSettles, watchNats } from "./nats.ts";
export { jetStreamLeases } from "./leases/jetstream.ts";
export { jetStreamQueue } from "./queue/jetstream.ts";
export { natsFileStore } from "./files/nats.ts";
export { kvCounterStore } from "./ratelimit.ts";
