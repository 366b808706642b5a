// Error pages for the portal and console: the API's problem rendered as HTML instead of problem+json.
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../env.ts";
import { ClientClosed, handleError } from "../http/problem.ts";
import { PROBLEMS, Problem } from "../lib/problem.ts";
import { renderDocument } from "./document.tsx";
import { renderPage } from "./renderer.tsx";

/** Where an error page leads back to: the set's home. */
interface WayBack {
  href: string;
  label: string;
}

function errorPage(c: Parameters<ErrorHandler<AppEnv>>[1], back: WayBack, status: number, title: string, text: string) {
  return renderDocument(
    c,
    title,
    <div class="card narrow">
      <h1>{title}</h1>
      <p>{text}</p>
      <p>
        <a href={back.href}>{back.label}</a>
      </p>
    </div>,
    status as 400,
  );
}

/** The error handler of a set of pages, whose error pages lead back to `back`. */
export function pageErrorHandler(back: WayBack): ErrorHandler<AppEnv> {
  return async (error, c) => {
    if (error instanceof ClientClosed) return handleError(error, c);
    // hono/csrf's refusal: a form posted from another site.
    if (error instanceof HTTPException && error.status === 403) {
      return errorPage(c, back, 403, "Refused", "This form was not sent from this site, so nothing was done.");
    }
    if (error instanceof Problem) {
      const { status, title } = PROBLEMS[(error as Problem).code];
      const page = await errorPage(c, back, status, title, error.message);
      // Keep the problem's headers (Retry-After of a 429 or 503), as the API's answer does.
      for (const [name, value] of Object.entries(error.headers)) page.headers.set(name, value);
      return page;
    }
    if (error instanceof HTTPException && error.status < 500) return errorPage(c, back, error.status, "Refused", error.message);
    return errorPage(c, back, 500, "Something went wrong", "Nothing you did caused this; please try again in a moment.");
  };
}

/**
 * What is not the account's (or not there at all), in the set's frame (404): "Order not found", with a way back to
 * the section's list.
 */
export function notFoundPage(c: Context, { what, section, back }: { what: string; section: string; back: WayBack }) {
  return renderPage(
    c,
    { title: `${what} not found`, section },
    <>
      <h1>{what} not found</h1>
      <p>
        This account has no such {/^[A-Z][a-z]/.test(what) ? what.charAt(0).toLowerCase() + what.slice(1) : what}.{" "}
        <a href={back.href}>{back.label}</a>.
      </p>
    </>,
    404,
  );
}
