// The update log contract against the SQL log always, and against JetStream when NATS_URL is set.
import { connectNats } from "../../src/nats.ts";
import { openJetStreamLog } from "../../src/updates/jetstream.ts";
import { openSqlLog } from "../../src/updates/sql.ts";
import { sharedDb } from "../support/harness.ts";
import { updateLogContract } from "./contract.ts";

updateLogContract("sql", async (now) => openSqlLog(await sharedDb(), { now, sweepIntervalMs: 0 }));

const natsUrl = process.env.NATS_URL;
if (natsUrl) {
  // Each instance gets its own connection, as a separate process would; closing the log
  // closes it, so reopening is a real restart.
  updateLogContract("jetstream", async (now) => {
    const nc = await connectNats(natsUrl, "update-log-test");
    const log = await openJetStreamLog(nc, { now });
    return {
      ...log,
      async close() {
        await log.close();
        await nc.close();
      },
    };
  });
}
