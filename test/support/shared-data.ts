import path from "node:path";
import { fileURLToPath } from "node:url";

/** The real public data beside the repository (`../shared/data`); tests read it in place. */
export const SHARED_DATA = process.env.SHARED_DATA_DIR ?? path.resolve(fileURLToPath(new URL("../../", import.meta.url)), "../shared/data");

export const sharedPath = (...parts: string[]) => path.join(SHARED_DATA, ...parts);
