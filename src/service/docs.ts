// The /docs reference page: Scalar served from this Worker's static assets, so it needs no internet and "try it" calls
// this origin.
import { Scalar } from "@scalar/hono-api-reference";
import packageJson from "../../package.json" with { type: "json" };

/**
 * Where the static assets hold Scalar's standalone bundle (scripts/docs-assets.ts copies it there). The version is in
 * the path, so the file can be cached for good and a new version is a new address.
 */
export const SCALAR_BUNDLE_PATH = `/docs/assets/scalar-api-reference-${packageJson.devDependencies["@scalar/api-reference"]}.js`;

export const docsPage = Scalar((c) => ({
  url: "/openapi.json",
  // The page's Content-Security-Policy allows scripts with this nonce only (see htmlPageHeaders).
  nonce: c.get("secureHeadersNonce"),
  cdn: SCALAR_BUNDLE_PATH,
  pageTitle: "virtual-numbers API reference",
  // The default fonts come from Scalar's font host; the system's fonts do.
  withDefaultFonts: false,
  telemetry: false,
  // The hosted extras call Scalar's services (AI agent, MCP, registry, deploy tools): off.
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
}));
