import { afterAll } from "vitest";
import { deleteOpensearchPrefixes } from "./search-backends.ts";

// A setup file runs again for every test file, so this hook is each file's own. At the file's top
// level it runs after every describe block's afterAll (the apps closed).
afterAll(deleteOpensearchPrefixes);
