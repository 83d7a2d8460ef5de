// Elysia decides at import time whether a validation error's message embeds the whole
// rejected value pretty-printed (development) or compactly (production). A served process
// always takes the production form: pretty-printing a hostile value costs seconds of CPU.
// Imported first by src/server.ts, before anything that loads Elysia.
process.env.NODE_ENV = "production";
