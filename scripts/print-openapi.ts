// Writes docs/openapi.json from the REST route table. A test fails when the checked-in file is stale;
// `npm run lint` lints it (Redocly) and a typed client is generated from it in CI.
import fs from "node:fs";
import { openApiFileContents } from "../rest-shim/openapi-file.ts";

const target = new URL("../docs/openapi.json", import.meta.url);
fs.writeFileSync(target, openApiFileContents());
console.log(`wrote ${target.pathname}`);
