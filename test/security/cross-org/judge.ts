import { allowedStatuses, expectsBody, type CaseContext, type Expectation } from "./expectations.ts";
import { sendGraphql, type GraphqlCase } from "./graphql.ts";
import { routeScopes, sendRest, type Answer, type RestCase } from "./rest.ts";
import { B_ACTORS, leaks, type Actor, type BActor, type CrossOrgWorld } from "./world.ts";

/** A REST or GraphQL case, as the judges see it. */
export interface Row {
  name: string;
  e: Expectation;
  scopes: readonly string[];
  send(ctx: CaseContext): Promise<Answer>;
}

export const restRow = (c: RestCase, suffix = ""): Row => ({ name: `${c.route}${suffix}`, e: c, scopes: routeScopes(c.route), send: (ctx) => sendRest(c, ctx) });
export const graphqlRow = (c: GraphqlCase, suffix = ""): Row => ({ name: `${c.field}${suffix}`, e: c, scopes: c.scopes, send: (ctx) => sendGraphql(c, ctx) });

const ctxOf = (w: CrossOrgWorld, actor: Actor, validating = false): CaseContext => ({ actor, w, validating });

/** What is wrong with one B caller's answer, or null. */
async function judgeB(w: CrossOrgWorld, row: Row, actor: BActor, answer: Answer): Promise<string | null> {
  const allowed = allowedStatuses(row.e, actor, w.holds(actor, row.scopes));
  if (!allowed.includes(answer.status)) return `${actor}: ${answer.status}, expected ${allowed.join(" or ")}: ${answer.text.slice(0, 300)}`;
  if (expectsBody(row.e) && answer.status < 300) {
    const found = leaks(w, answer.text);
    if (found.length) return `${actor}: the answer holds A's ${found.join(", ")}`;
    const wrong = await row.e.bCheck?.(JSON.parse(answer.text || "null"), ctxOf(w, actor));
    if (wrong) return `${actor}: ${wrong}`;
  }
  return null;
}

/** Sends the row as each of B's callers, in turn; returns what is wrong. */
export async function bProblems(w: CrossOrgWorld, row: Row): Promise<string[]> {
  const problems: string[] = [];
  for (const actor of B_ACTORS) {
    const problem = await judgeB(w, row, actor, await row.send(ctxOf(w, actor)));
    if (problem) problems.push(problem);
  }
  return problems;
}

/** Sends the row as its validator: its status, and A's data found where B found none. */
export async function validatorProblem(w: CrossOrgWorld, row: Row): Promise<string | null> {
  const as = row.e.validator.as ?? "site";
  const answer = await row.send(ctxOf(w, as, true));
  if (answer.status !== row.e.validator.status) return `${as}: ${answer.status}, expected ${row.e.validator.status}: ${answer.text.slice(0, 300)}`;
  const missing = (row.e.validatorFinds?.(w) ?? []).filter((s) => !answer.text.toLowerCase().includes(s.toLowerCase()));
  return missing.length ? `${as}: the answer lacks ${missing.join(", ")} (the request would not find A's data)` : null;
}

/** Validators' order: reads first (writes rename and move A's things), instance-wide rebuilds and deletions last. */
export function validationOrder(rows: Row[]): Row[] {
  const rank = (r: Row) => (r.e.validateLast ? 2 : /^(GET |Query\.)/.test(r.name) ? 0 : 1);
  return [...rows].sort((x, y) => rank(x) - rank(y));
}
