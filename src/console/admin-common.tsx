// Helpers shared by the console's admin pages.
import type { Context } from "hono";
import { pageWindow } from "../db/paging.ts";
import type { ConsoleEnv } from "../env.ts";
import { pageOnlyQuery } from "../http/pagination.ts";
import type { Problem } from "../lib/problem.ts";
import type { RedirectNote } from "../ui/after-redirect.ts";
import { Notice, type NoticeText, pageNotice } from "../ui/components.tsx";

type C = Context<ConsoleEnv>;
type Messages = Record<string, string>;

/** A page's form as posted again: the values, the error beside each field, the refusal's words on top. */
export interface PostedForm {
  values?: Messages;
  errors?: Messages;
  said?: NoticeText;
}

/** The notice of a page: its own, else what the redirect that led to it says (`?done=`). */
export function noticeOf(c: C, done: Readonly<Record<string, string>>, said: NoticeText | undefined) {
  const notice = pageNotice(c, done, said);
  return notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null;
}

export function refusal(problem: Problem): NoticeText {
  return { kind: "error", text: problem.message };
}

/** A page of a list as its `page` and `limit` query ask (the API's page query; page 1 of 20 when they do not parse). */
export function listWindow(c: C) {
  const parsed = pageOnlyQuery.safeParse(c.req.query());
  return parsed.success ? pageWindow(parsed.data.page, parsed.data.limit) : pageWindow(1, 20);
}

/** What a POST leaves for the page it redirects to waits in `cookie`, under a key of the person's Access token. */
export function staffNote(c: C, cookie: string): RedirectNote {
  const secret = c.var.operator.accessToken;
  // Every console page is behind requireStaffSession, which found the token.
  if (secret === undefined) throw new Error("a result is shown after a redirect only to a person signed in by Access");
  return { cookie, secret };
}
