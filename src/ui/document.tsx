// The HTML document around every page, the stylesheet and icon routes (served by the Worker, no CDN), and rendering
// without a renderer for error pages that may precede any middleware.
import type { Context } from "hono";
import { html } from "hono/html";
import type { Child } from "hono/jsx";
import { createRouter } from "../http/router.ts";
import { UI_CSS, UI_ICON_SVG } from "./styles.ts";

/** Where the stylesheet is served; its content is a module constant, so the address never changes meaning. */
const UI_CSS_PATH = "/ui/assets/ui.css";
/** Where the icon is served: from this origin, as the pages' Content-Security-Policy allows images (no data: URL). */
const UI_ICON_PATH = "/ui/assets/icon.svg";

export function Document({ title, children }: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · virtual-numbers`}</title>
        <link rel="stylesheet" href={UI_CSS_PATH} />
        <link rel="icon" href={UI_ICON_PATH} type="image/svg+xml" />
      </head>
      <body>{children}</body>
    </html>
  );
}

/** A page with no frame and no renderer: an error answered wherever it happened. */
export function renderDocument(c: Context, title: string, body: Child, status: number) {
  return c.html(html`<!DOCTYPE html>${<Document title={title}>{<main>{body}</main>}</Document>}`, status as 200);
}

/** The stylesheet and the icon, for anyone (public). */
export const uiAssets = createRouter()
  .get(UI_CSS_PATH, (c) => {
    c.header("Content-Type", "text/css; charset=utf-8");
    return c.body(UI_CSS);
  })
  .get(UI_ICON_PATH, (c) => {
    c.header("Content-Type", "image/svg+xml");
    return c.body(UI_ICON_SVG);
  });
