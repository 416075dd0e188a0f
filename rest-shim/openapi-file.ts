import { VERSION } from "../src/server.ts";
import { routeTable } from "./index.ts";
import { buildOpenApi } from "./openapi.ts";

/** The checked-in docs/openapi.json: the served document, with a server URL to fill in. */
export function openApiFileContents(): string {
  return JSON.stringify(buildOpenApi(routeTable, VERSION), null, 2) + "\n";
}
