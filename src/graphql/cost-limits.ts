import {
  GraphQLError,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { errors } from "../platform/errors.ts";

/**
 * What a field costs in an operation's budget, declared beside the field (`extensions: cost.xxx()`).
 * A field costs its `weight` (default 1) plus what is selected under it, times the number of items
 * it answers: `sizeArg` names the argument that says how many (a page size, a limit), `size` is the
 * count when that argument is absent and has no default (or a list's known bound). A field that
 * is not a list passes its count on to the list it holds (a page's `items` or `hits`); any other
 * list counts as DEFAULT_LIST_SIZE items.
 */
export interface FieldCost {
  weight?: number;
  sizeArg?: string;
  size?: number;
}

/**
 * Runs a search (or several), or an aggregate over every correlation: the budget holds two in one
 * operation (Explore's two indices); its histograms come in an operation of their own.
 */
export const SEARCH_WEIGHT = 20_000;
/** Calls an external service (a feed's server, the vulnerability database, the rules service). */
export const EXTERNAL_WEIGHT = 10_000;
/** A heavier read than a row by key (counts over many rows), far lighter than a search. */
export const AGGREGATE_WEIGHT = 1000;
/** A database query of its own for each item it appears on (not batched with the others). */
export const QUERY_WEIGHT = 10;

/** Per operation (each measured with fragments expanded where they are used). */
export const LIMITS = {
  /**
   * Nesting of fields. The schema's own types nest 5 deep at most; the standard introspection query
   * (GraphiQL, code generators) 15, and introspection can nest without end (`__Type.fields.type...`).
   */
  depth: 15,
  aliases: 30,
  fields: 1000,
  /** Two searches with their pages (a third is over), or one search beside tens of thousands of plain values. */
  cost: 50_000,
} as const;

const DEFAULT_LIST_SIZE = 10;
/** Fields every type has (`__typename`) or the query root has (`__schema`, `__type`), outside its field map. */
const META_FIELDS: Record<string, GraphQLField<unknown, unknown>> = {
  __schema: SchemaMetaFieldDef,
  __type: TypeMetaFieldDef,
  __typename: TypeNameMetaFieldDef,
};
/** Larger counts are refused by the fields themselves; this only keeps the arithmetic finite. */
const MAX_COUNTED_SIZE = 10_000;

export const cost = {
  search: (sizeArg?: string): { cost: FieldCost } => ({ cost: { weight: SEARCH_WEIGHT, ...(sizeArg ? { sizeArg } : {}) } }),
  external: (sizeArg?: string, size?: number): { cost: FieldCost } => ({ cost: { weight: EXTERNAL_WEIGHT, ...(sizeArg ? { sizeArg } : {}), ...(size ? { size } : {}) } }),
  aggregate: (sizeArg?: string): { cost: FieldCost } => ({ cost: { weight: AGGREGATE_WEIGHT, ...(sizeArg ? { sizeArg } : {}) } }),
  query: (): { cost: FieldCost } => ({ cost: { weight: QUERY_WEIGHT } }),
  /** A page or list whose length an argument gives; `size`: the count when it is not given. */
  page: (sizeArg: string, size?: number): { cost: FieldCost } => ({ cost: { sizeArg, ...(size ? { size } : {}) } }),
  /** A list of at most `size` items, whatever is asked. */
  list: (size: number): { cost: FieldCost } => ({ cost: { size } }),
};

export interface OperationMeasure {
  depth: number;
  aliases: number;
  fields: number;
  cost: number;
}

/**
 * Measures the operation that would run (the named one, or the only one). Fragments are expanded
 * where they are spread, so a fragment used ten times counts ten times.
 */
export function measureOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown>): OperationMeasure | null {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  if (!operation) return null;
  const root = operation.operation === "query" ? schema.getQueryType() : operation.operation === "mutation" ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const measure: OperationMeasure = { depth: 0, aliases: 0, fields: 0, cost: 0 };

  const argValue = (node: ValueNode | undefined): unknown => {
    if (!node) return undefined;
    if (node.kind === Kind.VARIABLE) return variables[node.name.value];
    if (node.kind === Kind.INT || node.kind === Kind.FLOAT) return Number(node.value);
    return undefined;
  };

  /** The cost of a selection set on `parent`; `inherited`: the count a non-list parent passed on. */
  const walk = (set: SelectionSetNode, parent: GraphQLNamedType, depth: number, inherited: number | undefined, spreads: ReadonlySet<string>): number => {
    let total = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? (schema.getType(sel.typeCondition.name.value) ?? parent) : parent;
        total += walk(sel.selectionSet, on, depth, inherited, spreads);
        continue;
      }
      if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(sel.name.value);
        // A cycle is a validation error; it is simply not followed here.
        if (!fragment || spreads.has(fragment.name.value)) continue;
        const on = schema.getType(fragment.typeCondition.name.value) ?? parent;
        total += walk(fragment.selectionSet, on, depth, inherited, new Set([...spreads, fragment.name.value]));
        continue;
      }
      measure.fields++;
      if (sel.alias) measure.aliases++;
      measure.depth = Math.max(measure.depth, depth);
      const name = sel.name.value;
      const meta = META_FIELDS[name];
      if (meta) {
        // Introspection is answered from the schema in memory: its fields count and nest, they cost nothing.
        if (sel.selectionSet && parent === root) walk(sel.selectionSet, getNamedType(meta.type), depth + 1, undefined, spreads);
        continue;
      }
      const field: GraphQLField<unknown, unknown> | undefined = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
      if (!field) continue;
      const declared = (field.extensions as { cost?: FieldCost } | undefined)?.cost ?? {};
      let count: number | undefined;
      if (declared.sizeArg) {
        const given = argValue(sel.arguments?.find((a) => a.name.value === declared.sizeArg)?.value);
        const fallback = field.args.find((a) => a.name === declared.sizeArg)?.defaultValue;
        const n = [given, fallback, declared.size].find((v): v is number => typeof v === "number" && Number.isFinite(v));
        count = Math.min(Math.max(Math.ceil(n ?? DEFAULT_LIST_SIZE), 0), MAX_COUNTED_SIZE);
      } else if (declared.size !== undefined) {
        count = declared.size;
      }
      const isList = isListType(getNullableType(field.type));
      let multiplier = 1;
      let passOn: number | undefined;
      if (isList) multiplier = count ?? inherited ?? DEFAULT_LIST_SIZE;
      else passOn = count;
      const below = sel.selectionSet ? walk(sel.selectionSet, getNamedType(field.type), depth + 1, passOn, spreads) : 0;
      total += (declared.weight ?? 1) + multiplier * below;
    }
    return total;
  };

  measure.cost = walk(operation.selectionSet, root, 1, undefined, new Set());
  return measure;
}

/** The first limit a measured operation is over, said so that the caller knows what to change. */
export function overLimit(m: OperationMeasure): string | null {
  if (m.depth > LIMITS.depth) return `Operation nests fields ${m.depth} deep; at most ${LIMITS.depth} allowed`;
  if (m.aliases > LIMITS.aliases) return `Operation uses ${m.aliases} aliases; at most ${LIMITS.aliases} allowed`;
  if (m.fields > LIMITS.fields) return `Operation selects ${m.fields} fields; at most ${LIMITS.fields} allowed`;
  if (m.cost > LIMITS.cost) {
    return `Operation costs ${m.cost}, over the budget of ${LIMITS.cost} (a search costs ${SEARCH_WEIGHT}, list items count per requested size): split it into several requests`;
  }
  return null;
}

function refusal(detail: string, m: OperationMeasure): GraphQLError {
  const e = errors.queryTooComplex(detail, { ...m });
  return new GraphQLError(e.message, { extensions: { ...e.extra, code: e.code, status: e.status, detail: e.detail, http: { status: e.status } } });
}

/**
 * Refuses an operation over a depth, alias, field or cost limit (400 `query_too_complex`) before
 * any resolver runs, over HTTP and graphql-ws alike. Measured at execution, when the variables
 * (page sizes) are known.
 */
export function costLimitsPlugin(): Plugin {
  const check = (args: { schema: GraphQLSchema; document: DocumentNode; operationName?: string | null; variableValues?: Record<string, unknown> | null }) => {
    const m = measureOperation(args.schema, args.document, args.operationName, args.variableValues ?? {});
    const problem = m && overLimit(m);
    return problem ? refusal(problem, m) : null;
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refused = check(args);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = check(args);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
  };
}
