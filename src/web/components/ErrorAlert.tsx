import { Alert } from "@mantine/core";
import type { CombinedError } from "urql";

/** The API's own message: GraphQL errors as the server worded them, else the network failure. */
export function apiMessage(error: CombinedError | Error | string): string {
  if (typeof error === "string") return error;
  if ("graphQLErrors" in error && error.graphQLErrors.length) return error.graphQLErrors.map((e) => e.message).join("; ");
  if ("networkError" in error && error.networkError) return error.networkError.message;
  return error.message;
}

/** The error state of a page or section, announced at once. */
export function ErrorAlert({ error, title = "Something went wrong" }: { error: CombinedError | Error | string; title?: string }) {
  return (
    <Alert role="alert" color="red" title={title}>
      {apiMessage(error)}
    </Alert>
  );
}
