import { useQuery } from "urql";
import { graphql } from "../../gql/index.ts";

const CatalogueQuery = graphql(`
  query AttributeCatalogue {
    attributeCategories {
      name
      types
    }
    attributeTypes {
      name
      defaultCategory
      toIds
    }
  }
`);

export interface Catalogue {
  categories: { name: string; types: string[] }[];
  types: { name: string; defaultCategory: string; toIds: boolean }[];
}

/** MISP's type/category catalogue as the API checks attributes against it (read once per session). */
export function useCatalogue(): { catalogue: Catalogue | null; error: Error | null } {
  const [{ data, error }] = useQuery({ query: CatalogueQuery, requestPolicy: "cache-first" });
  return { catalogue: data ? { categories: data.attributeCategories, types: data.attributeTypes } : null, error: error ?? null };
}

/** The types a form offers: those of the category chosen, every type without one. */
export function typesFor(catalogue: Catalogue, category: string | null): string[] {
  if (!category) return catalogue.types.map((t) => t.name);
  return catalogue.categories.find((c) => c.name === category)?.types ?? [];
}
