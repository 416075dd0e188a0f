import type { CodegenConfig } from "@graphql-codegen/cli";

/** Typed documents for the UI from the checked-in schema.graphql (`npm run codegen:web`; CI checks it is current). */
const config: CodegenConfig = {
  schema: "schema.graphql",
  documents: ["src/web/**/*.{ts,tsx}", "!src/web/gql/**"],
  ignoreNoDocuments: true,
  generates: {
    "src/web/gql/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { DateTime: "string", JSON: "unknown", Upload: "File" } },
    },
  },
};

export default config;
