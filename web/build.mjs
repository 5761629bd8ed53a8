// Build the page into ../kgsvc/web/static/ (committed, so a Python install needs no npm): `npm ci && npm run build`.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
// KGSVC_WEB_OUT: build elsewhere (tests/web/test_static.py compares such a build with the committed one)
const out = process.env.KGSVC_WEB_OUT ?? join(here, "..", "kgsvc", "web", "static");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, "src", "main.ts")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  outfile: join(out, "app.js"),
  legalComments: "linked",
  logLevel: process.env.KGSVC_WEB_OUT ? "warning" : "info",
});
copyFileSync(join(here, "src", "app.css"), join(out, "app.css"));
copyFileSync(join(here, "src", "index.html"), join(out, "index.html"));
copyFileSync(join(here, "src", "favicon.svg"), join(out, "favicon.svg"));
// The API docs page (/docs) uses Swagger UI from npm, served from /static/swagger like the rest of the page.
const swagger = join(here, "node_modules", "swagger-ui-dist");
mkdirSync(join(out, "swagger"), { recursive: true });
for (const name of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"]) {
  copyFileSync(join(swagger, name), join(out, "swagger", name));
}
