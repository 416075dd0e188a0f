/**
 * GraphQL enum values are SCREAMING_SNAKE_CASE; the value a resolver sees (and REST sends and the
 * database stores) stays the wire value. `enumValues` writes the mapping once, each value's
 * description naming its wire value.
 */
export const graphqlEnumName = (wire: string): string => wire.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase();

export function enumValues<const V extends string>(docs: { readonly [K in V]: string }): Record<string, { value: V; description: string }> {
  return Object.fromEntries(
    (Object.keys(docs) as V[]).map((wire) => [graphqlEnumName(wire), { value: wire, description: `${docs[wire]} (REST value \`${wire}\`)` }]),
  ) as Record<string, { value: V; description: string }>;
}
