// The cabinet's service worker, served at /sw.js so its scope is the whole cabinet:
// it shows operator push notifications and brings the operator to the conversation.
import { listen, type WorkerScope } from "./handlers.ts";

listen(self as unknown as WorkerScope);
