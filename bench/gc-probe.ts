// Preloaded into the soak's processes when it asks for it (SOAK_FULL_GC_MS): a full collection
// every so often, so each RSS sample shows what the process keeps rather than where the
// collector's sawtooth stands. The webhook process's teeth last minutes (heap capacity 11 -> 16
// MB, RSS 79 -> 84-91 MB, back at the next full collection), longer than a third of CI's two
// minutes, so a median over a third could not tell a tooth from growth.
const every = Number(process.env.SOAK_FULL_GC_MS);
if (every > 0) setInterval(() => Bun.gc(true), every).unref();
