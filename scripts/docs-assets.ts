// Copies Scalar's standalone bundle into the Worker's static assets at the version-pinned path /docs serves it from.
// Run by npm install (postinstall), so `npm start`, `npm run build` and the tests find it.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.join(import.meta.dirname, "..");
const scalar = path.join(root, "node_modules/@scalar/api-reference");
const { version } = JSON.parse(readFileSync(path.join(scalar, "package.json"), "utf8")) as { version: string };
const assets = path.join(root, "public");
const target = path.join(assets, "docs/assets");

rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
copyFileSync(path.join(scalar, "dist/browser/standalone.js"), path.join(target, `scalar-api-reference-${version}.js`));
// Static assets are answered without the Worker, so the security headers every answer carries are set here; and the
// version is in the file's name, so browsers may keep it for good.
const headers = [
  "/*",
  "  X-Content-Type-Options: nosniff",
  "  Referrer-Policy: no-referrer",
  "/docs/assets/*",
  "  Cache-Control: public, max-age=31536000, immutable",
];
writeFileSync(path.join(assets, "_headers"), `${headers.join("\n")}\n`);
