// Writes schema.graphql from the code-first schema. A test fails when the checked-in file is stale.
import fs from "node:fs";
import { printedSchema } from "../src/graphql/schema.ts";

const target = new URL("../schema.graphql", import.meta.url);
fs.writeFileSync(target, printedSchema());
console.log(`wrote ${target.pathname}`);
