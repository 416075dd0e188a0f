import type { AppContext } from "../../app-context.ts";
import { secretBox } from "../../platform/secret-box.ts";
import { readRuntimeSetting } from "../settings/index.ts";
import { MispClient } from "./misp-client.ts";
import { pullRulesContract, pushRulesContract, type PullRules, type PushRules } from "./servers.contracts.ts";
import type { ServerRow } from "./servers.repository.ts";

/** What the API key's ciphertext is bound to (a value copied elsewhere does not open). */
const AUTHKEY_PURPOSE = "servers.authkey";

export const sealAuthkey = (app: AppContext, authkey: string) => secretBox(app.config.SECRETS_KEY, app.config.dataDir).seal(authkey, AUTHKEY_PURPOSE);

/** A client for the server's remote, with the network feeds' address policy, deadline and size cap (runtime setting feeds). */
export async function clientFor(app: AppContext, server: ServerRow): Promise<MispClient> {
  const settings = await readRuntimeSetting(app.db.pool, "feeds");
  return new MispClient({
    baseUrl: server.url,
    authkey: secretBox(app.config.SECRETS_KEY, app.config.dataDir).open(server.authkeyCipher, AUTHKEY_PURPOSE),
    timeoutMs: settings.fetch_timeout_seconds * 1000,
    maxBytes: settings.max_download_bytes,
    allowedPrivateNetworks: settings.allowed_private_networks,
  });
}

/** Stored rules, read again through their contracts (a rule added later has its default). */
export const pullRulesOf = (server: ServerRow): PullRules => pullRulesContract.catch({}).parse(server.pullRules ?? {});
export const pushRulesOf = (server: ServerRow): PushRules => pushRulesContract.catch({}).parse(server.pushRules ?? {});
