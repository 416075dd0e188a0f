import pg from "pg";

// int8 (bigint ids, counts) as JS numbers: our counts and ids stay far below 2^53. The parser is the
// process's, so every pool reads them alike (the search backend's too); tests load this module before
// each file (test/support/per-file.ts) so that they read them as the service does.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
