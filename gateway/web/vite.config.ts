// The page is served by the web edge (gateway/web_edge.py) from dist/; `vite` alone serves it for development, with
// its gRPC-Web calls passed to an edge on 127.0.0.1:8080 (`make run`).
import { defineConfig } from "vite";

export default defineConfig({
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  server: {
    host: "127.0.0.1",
    proxy: { "/manaforge.v1.Gateway": "http://127.0.0.1:8080", "/manaforge.v1.RulesService": "http://127.0.0.1:8080" },
  },
});
