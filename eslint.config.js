import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "src/web/gql/", "src/generated/", "test/generated/", "**/*.generated.js", "**/*.generated.d.ts", "var/", ".opensearch/", "coverage/", ".scratch/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "no-console": ["error", { allow: ["warn", "error"] }],
    },
  },
  // One way to enqueue a job (src/platform/job-queue.ts, task names from job-names.ts). Tests and
  // benches may write the SQL: they stand in for other processes or enqueue in bulk.
  {
    files: ["src/**", "rest-shim/**", "scripts/**"],
    ignores: ["src/platform/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "Literal[value=/add_job/], TemplateElement[value.raw=/add_job/]",
          message: "Enqueue with enqueueJob (src/platform/job-queue.ts), not graphile_worker.add_job.",
        },
      ],
    },
  },
  // The search layer serves the modules and depends on none of them (the indexer is src/indexing).
  {
    files: ["src/search/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "(^|/)modules/", message: "src/search imports nothing from src/modules; what needs both belongs in src/indexing or the module." }] },
      ],
    },
  },
  // Each area of src/modules has a front door (index.ts): code outside the area imports only that.
  // The GraphQL schema's assembly (src/graphql/schema.ts) loads each area's resolvers, which live
  // in the area beside its service.
  {
    files: ["src/**", "rest-shim/**"],
    ignores: ["src/modules/**", "src/search/**", "src/graphql/schema.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "(^|/)modules/[a-z-]+/(?!index\\.ts$)", message: "Import the area's front door (src/modules/<area>/index.ts)." }] },
      ],
    },
  },
  {
    files: ["src/modules/*/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^\\.\\./[a-z-]+/(?!index\\.ts$)", message: "Another area: import its front door (../<area>/index.ts)." }] }],
    },
  },
  // Front doors load no GraphQL code: the areas' resolver files form the GraphQL layer and may
  // reference each other's types (an Event field defined by the attributes area).
  {
    files: ["src/modules/*/*.graphql.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^\\.\\./[a-z-]+/(?!index\\.ts$)(?![a-z-]+\\.graphql\\.ts$)", message: "Another area: import its front door, or its .graphql.ts for GraphQL types." }] },
      ],
    },
  },
  {
    files: ["src/modules/*/*/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^\\.\\./\\.\\./[a-z-]+/(?!index\\.ts$)", message: "Another area: import its front door (../../<area>/index.ts)." }] }],
    },
  },
  { files: ["scripts/**", "bench/**", "test/**"], rules: { "no-console": "off" } },
  // Tests read JSON answers loosely; production code may not.
  { files: ["test/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
);
