// What the facade core uses: the native runtime and webhook use cases it translates to.
import type { RuntimeDeps } from "../domain/runtime.ts";
import type { WebhookDeps } from "../domain/webhooks.ts";

import type { FileDeps } from "../domain/files.ts";
import type { Config } from "../config.ts";

export type TelegramDeps = RuntimeDeps & WebhookDeps & FileDeps & { config: Pick<Config, "allowPrivateWebhooks"> };
