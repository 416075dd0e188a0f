import { afterAll } from "vitest";
import { deleteOpensearchPrefixes } from "./search-backends.ts";
// int8 as the service reads it, in every file (a file that never loads src/platform/db read them as text).
import "../../src/platform/db/int8.ts";

// A setup file runs again for every test file, so this hook is each file's own. At the file's top
// level it runs after every describe block's afterAll (the apps closed).
afterAll(deleteOpensearchPrefixes);
