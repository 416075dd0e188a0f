import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "src/generated/", "test/generated/", "**/*.generated.js", "**/*.generated.d.ts", "var/", ".opensearch/", "coverage/", ".scratch/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "no-console": ["error", { allow: ["warn", "error"] }],
    },
  },
  { files: ["scripts/**", "bench/**", "test/**"], rules: { "no-console": "off" } },
  // Tests read JSON answers loosely; production code may not.
  { files: ["test/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
);
