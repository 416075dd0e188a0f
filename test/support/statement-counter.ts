import pg from "pg";

/**
 * Counts the SQL statements this process sends to PostgreSQL (node-postgres is the only driver: raw
 * SQL and Prisma's adapter both go through `Client.prototype.query`). For in-process services only
 * (`startTestApp`); keep other work quiet while counting (ROLE=api: no worker).
 */
export function countStatements(): { readonly count: number; stop(): void } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let count = 0;
  proto.query = function (this: unknown, ...args: unknown[]) {
    count++;
    return original.apply(this, args);
  };
  return {
    get count() {
      return count;
    },
    stop() {
      proto.query = original;
    },
  };
}

export interface SentStatement {
  text: string;
  values: unknown[];
}

/**
 * `client` with the statements the code under test sends through it recorded in `sent`, as written
 * (to EXPLAIN them, or to count them); everything else is the client's own.
 */
export function recordStatements<T extends object>(client: T): { client: T; sent: SentStatement[] } {
  const sent: SentStatement[] = [];
  const recorder = new Proxy(client, {
    get: (target, prop) => {
      if (prop !== "query") return Reflect.get(target, prop);
      const query = Reflect.get(target, prop) as (text: string, values: unknown[]) => unknown;
      return (text: string, values: unknown[]) => {
        sent.push({ text, values });
        return query.call(target, text, values);
      };
    },
  });
  return { client: recorder, sent };
}
