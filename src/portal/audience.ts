// The portal's audience: users of an account, by session cookie.
import type { PortalEnv } from "../env.ts";
import { createRouter } from "../http/router.ts";
import { pageRenderer } from "../ui/renderer.tsx";
import { portalFrame } from "./frame.tsx";
import { requireSession } from "./session-guard.tsx";

/**
 * People of an account, by the portal's session cookie (and on every form, its CSRF token), and the portal's frame
 * around every page. Mounted at /portal after the portal's public pages (sign-in, invitations), whose routes answer
 * before this guard is reached.
 */
export function portalAudience() {
  const router = createRouter<PortalEnv>();
  // The renderer after the guard: the frame names the visitor the guard found.
  router.use(requireSession, pageRenderer(portalFrame));
  return router;
}
