// The renderer of a set of pages, built once with its frame as Hono's jsxRenderer (like honox's _renderer.tsx), so a
// page renders with `renderPage(c, { title, section }, <Page />, status)`.
import type { Context } from "hono";
import type { Child, PropsWithChildren } from "hono/jsx";
import { jsxRenderer } from "hono/jsx-renderer";
import { Document } from "./document.tsx";

/** What every page tells its renderer: its title, and the section of the frame it belongs to (marked current). */
export interface PageProps {
  title: string;
  section?: string;
}

/** c.render as the renderer below takes it (Hono types it from a ContextRenderer augmentation its bundled types refuse). */
type PageRender = (content: Child, props: PageProps) => Response | Promise<Response>;

/** A set's frame around a page: what comes above and around `children`, for the request `c`. */
export type Frame = (props: { section: string | undefined; children: Child }, c: Context) => Child;

/** The renderer of a set of pages: the document, the frame (or none), then the page in <main>. */
export function pageRenderer(frame?: Frame) {
  return jsxRenderer((props, c) => {
    const { children, title, section } = props as unknown as PropsWithChildren<PageProps>;
    const page = <main>{children}</main>;
    return <Document title={title}>{frame ? frame({ section, children: page }, c) : page}</Document>;
  });
}

/** A page through the request's renderer with its status (c.render answers 200 unless told otherwise). */
export function renderPage(c: Context, props: PageProps, body: Child, status = 200) {
  c.status(status as 200);
  return (c.render as unknown as PageRender)(body, props);
}
