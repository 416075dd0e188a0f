import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { eventually, sleep } from "../../support/process.ts";
import type { Actor, CrossOrgWorld } from "./world.ts";
import { everyField } from "./graphql.ts";

/**
 * One row per subscription root field: A's change that produces a message for A's user, who is
 * subscribed beside B's callers. B's callers get only what concerns them (the initial value of a
 * field that answers "now, then after every change"), never a message caused by A's change.
 */
export interface SubscriptionCase {
  field: string;
  scopes: readonly string[];
  query: string;
  /** Messages every subscriber gets at once, before any change. */
  initial: number;
  trigger(w: CrossOrgWorld): Promise<void>;
}

let toggle = 0;
/** A's org admin changes A's private event, which A's user follows. */
const changeAsPrivateEvent = async (w: CrossOrgWorld) => {
  await w.call("aAdmin", "PATCH", `/events/${w.a.privateEvent.uuid}`, { analysis: ++toggle % 2 === 0 ? 1 : 2 });
};

export const subscriptionCases: SubscriptionCase[] = [
  { field: "Subscription.notificationCreated", scopes: ["notifications:read"], query: `subscription { notificationCreated { id type entityUuid payload ${everyField("NotificationPayload")} } }`, initial: 0, trigger: changeAsPrivateEvent },
  { field: "Subscription.unreadNotificationCount", scopes: ["notifications:read"], query: "subscription { unreadNotificationCount }", initial: 1, trigger: changeAsPrivateEvent },
  {
    field: "Subscription.userSettingsChanged", scopes: ["user_settings:read"], query: "subscription { userSettingsChanged { namespace } }", initial: 0,
    trigger: async (w) => {
      await w.call("aUser", "POST", "/settings/user/ui", { theme: `theme ${++toggle}` });
    },
  },
];

export interface Received {
  data: string[];
  errors: string[];
}

/** Subscribes as each actor; returns what each receives, and a way to close them all. */
export function subscribeAll(w: CrossOrgWorld, c: SubscriptionCase, actors: readonly Actor[]): { received: Map<Actor, Received>; close(): Promise<void> } {
  const clients: Client[] = [];
  const received = new Map<Actor, Received>();
  for (const actor of actors) {
    const got: Received = { data: [], errors: [] };
    received.set(actor, got);
    const client = createClient({ url: `${w.app.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: w.credential(actor) }, retryAttempts: 0 });
    clients.push(client);
    client.subscribe(
      { query: c.query },
      { next: (r) => (r.errors ? got.errors.push(JSON.stringify(r.errors)) : got.data.push(JSON.stringify(r.data))), error: (e) => got.errors.push(String((e as Error).message ?? JSON.stringify(e))), complete: () => undefined },
    );
  }
  return { received, close: async () => void (await Promise.all(clients.map((client) => client.dispose()))) };
}

/** Waits for A's user's message caused by the trigger, then a moment for any stray delivery. */
export async function afterTrigger(w: CrossOrgWorld, c: SubscriptionCase, witness: Received): Promise<void> {
  await sleep(500);
  const before = witness.data.length;
  await c.trigger(w);
  await eventually(() => witness.data.length > before, `${c.field}: A's user's message`, 15_000, 20);
  await sleep(700);
}
