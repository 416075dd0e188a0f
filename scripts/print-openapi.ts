// Writes docs/openapi.json from the REST route table, and the typed client's types generated from it
// by openapi-typescript (test/generated/openapi.ts). Tests fail when either checked-in file is stale;
// `npm run lint` lints the document (Redocly) and test/integration/openapi-client.test.ts drives the
// service through openapi-fetch with the generated types (type-checked by `npm run typecheck`).
import fs from "node:fs";
import { openApiClientTypes, openApiFileContents } from "../rest-shim/openapi-file.ts";

const document = new URL("../docs/openapi.json", import.meta.url);
fs.writeFileSync(document, openApiFileContents());
console.log(`wrote ${document.pathname}`);
const types = new URL("../test/generated/openapi.ts", import.meta.url);
fs.mkdirSync(new URL(".", types), { recursive: true });
fs.writeFileSync(types, await openApiClientTypes());
console.log(`wrote ${types.pathname}`);
