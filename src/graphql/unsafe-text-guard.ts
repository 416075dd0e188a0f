import { GraphQLError, getLocation, visit, type DocumentNode, type StringValueNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { errors, type ValidationIssue } from "../platform/errors.ts";
import { findUnsafeText, unsafeTextReason } from "../platform/unsafe-text.ts";

/**
 * NUL characters and unpaired surrogates in an operation's variables or in its document's string
 * literals (`"\u0000"` is a valid GraphQL escape) are refused before anything executes, as the REST
 * layer refuses them (rest-shim/register.ts): one error with code `validation_error`, status 422
 * and each place in `detail`. PostgreSQL cannot store either, so a resolver that forgot would
 * answer an internal error. Runs in envelop's execute and subscribe, so HTTP, graphql-ws and
 * multipart operations alike.
 */
export function useUnsafeTextGuard(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refusal = refusalOf(args.document, args.variableValues);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refusal = refusalOf(args.document, args.variableValues);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
  };
}

function refusalOf(document: DocumentNode, variables: unknown): GraphQLError | null {
  const issues: ValidationIssue[] = findUnsafeText(variables ?? {}, ["variables"]);
  const nodes: StringValueNode[] = [];
  visit(document, {
    StringValue(node) {
      const why = unsafeTextReason(node.value);
      if (!why) return;
      nodes.push(node);
      const at = node.loc ? getLocation(node.loc.source, node.loc.start) : null;
      issues.push({ type: "value_error", loc: at ? ["document", at.line, at.column] : ["document"], msg: why });
    },
  });
  if (issues.length === 0) return null;
  const err = errors.validation(issues);
  return new GraphQLError(err.message, { nodes, extensions: { code: err.code, status: err.status, detail: err.detail } });
}
