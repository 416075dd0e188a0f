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
