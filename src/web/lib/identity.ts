import { useQuery } from "urql";
import { graphql } from "../gql/index.ts";

const WhoamiQuery = graphql(`
  query Whoami {
    whoami {
      userId
      email
      orgId
      roleId
      scopes
    }
  }
`);

export interface Identity {
  userId: number | null;
  email: string | null;
  orgId: number | null;
  roleId: number | null;
  scopes: string[];
}

/** Who is signed in and what they may do (the UI hides what the API would refuse anyway). */
export function useIdentity(): Identity | null {
  const [{ data }] = useQuery({ query: WhoamiQuery, requestPolicy: "cache-first" });
  return data?.whoami ?? null;
}

/** Whether the scopes grant `scope` (wildcards `*` and `area:*` as the API reads them). */
export function grants(scopes: readonly string[], scope: string): boolean {
  const [area] = scope.split(":");
  return scopes.some((s) => s === "*" || s === scope || s === `${area}:*`);
}
