// A staff member in the console for workers tests: their pages (GET) and forms (POST with the CSRF token their pages
// carry), and the page a form's redirect leads to.
import { expect } from "vitest";
import type { StaffRole } from "../src/db/schema.ts";
import { call } from "./helpers.ts";
import { pageText, postForm } from "./portal.ts";
import { staffMember } from "./staff.ts";

export async function inConsole(role: StaffRole) {
  const member = await staffMember(role);
  const home = await pageText(await call("/ops", { headers: member.headers }), 200);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(home)?.[1] ?? "";
  return {
    member,
    home,
    get: (path: string) => call(path, { headers: member.headers, redirect: "manual" }),
    post: (path: string, fields: Record<string, string | string[]> = {}) =>
      postForm(path, { csrf_token: csrf, ...fields }, member.headers),
    /** The page a form's 303 leads to, as a browser opens it: with the cookies the answer set (what it shows once). */
    follow: (answer: Response) => {
      expect(answer.status).toBe(303);
      const Cookie = answer.headers
        .getSetCookie()
        .map((c) => c.split(";")[0]!)
        .join("; ");
      return call(answer.headers.get("Location")!, { headers: { ...member.headers, Cookie }, redirect: "manual" });
    },
  };
}

export type Console = Awaited<ReturnType<typeof inConsole>>;
