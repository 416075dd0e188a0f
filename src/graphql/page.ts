import type { ObjectRef } from "@pothos/core";
import { builder } from "./builder.ts";
import type { Page } from "../platform/pagination.ts";

/**
 * The one paging shape of the GraphQL lists, the REST lists' P1 envelope: `page`/`size` arguments,
 * a `*Page` answer `{items, total, page, size, pages}`. Its field and argument descriptions are
 * written here once.
 */
export const PAGE_DOC = {
  page: "Page number, from 1",
  size: (defaultSize: number, max = 100) => `Items per page, 1 to ${max} (default ${defaultSize})`,
  items: "The items of this page",
  total: "Number of matching items over all pages",
  pages: "Number of pages of this size (0 when total is 0)",
  pageField: "This page's number, from 1",
  sizeField: "The page size asked for (items may hold fewer on the last page)",
} as const;

type Builder = typeof builder;
type Types = Builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The field builder of an object type whose parent is `P`, for helpers that build fields. */
export type FieldBuilderOf<P> = PothosSchemaTypes.ObjectFieldBuilder<Types, P>;
export type ObjectRefOf<T> = ObjectRef<Types, T>;

/** A `<name>` page of `item`s; `what` names the items in the description ("users", "hunt runs"). */
export function pageType<T>(name: string, item: ObjectRef<Types, T>, what: string) {
  return builder.objectRef<Page<T>>(name).implement({
    description: `One page of ${what}: the items with the total and page count, as the REST lists' {items, total, page, size, pages}`,
    fields: (t) => ({
      items: t.field({ type: [item], description: PAGE_DOC.items, resolve: (p) => p.items }),
      total: t.exposeInt("total", { description: PAGE_DOC.total }),
      page: t.exposeInt("page", { description: PAGE_DOC.pageField }),
      size: t.exposeInt("size", { description: PAGE_DOC.sizeField }),
      pages: t.exposeInt("pages", { description: PAGE_DOC.pages }),
    }),
  });
}
