import { gzipSync } from "node:zlib";
import fs from "node:fs";
import path from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const outDir = path.resolve(import.meta.dirname, "../../dist/web");

/** Writes a .gz beside each text asset: the server sends it as is (@fastify/static preCompressed). */
function precompress(): Plugin {
  return {
    name: "workbench-precompress",
    apply: "build",
    closeBundle() {
      const walk = (dir: string): string[] =>
        fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
      for (const file of walk(outDir)) {
        if (/\.(js|css|svg|json|html)$/.test(file)) fs.writeFileSync(`${file}.gz`, gzipSync(fs.readFileSync(file), { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  plugins: [react(), precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    // No inline scripts anywhere (the page's CSP forbids them), so no modulepreload polyfill either.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 700,
    sourcemap: false,
  },
  server: {
    proxy: {
      "^/(graphql|auth|api-keys|events|attributes|exports|feeds|hunts|notifications|settings|tasks|users|roles|organisations|admin|galaxies|tags|sightings|correlations|reports|taxonomies|sharing_groups|objects|mcp)": {
        target: process.env.WORKBENCH_URL ?? "http://127.0.0.1:8000",
        ws: true,
        bypass: (req) => (req.headers["sec-fetch-mode"] === "navigate" ? "/index.html" : undefined),
      },
    },
  },
});
