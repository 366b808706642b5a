// The portal's page frame: section links, the signed-in user and account, sign-out, and a local-deployment notice.
import { type Bindings, deploymentOf, type PortalVisitor } from "../env.ts";
import { CsrfField } from "../ui/components.tsx";
import type { Frame } from "../ui/renderer.tsx";

export type Section = "orders" | "find" | "reservations" | "numbers" | "profiles" | "keys" | "team" | "webhooks" | "activity";

const SECTIONS: { id: Section; href: string; label: string; settings: boolean }[] = [
  { id: "orders", href: "/portal/orders", label: "Orders", settings: false },
  { id: "find", href: "/portal/find-numbers", label: "Find numbers", settings: false },
  { id: "reservations", href: "/portal/reservations", label: "Reservations", settings: false },
  { id: "numbers", href: "/portal/numbers", label: "Numbers", settings: false },
  { id: "profiles", href: "/portal/profiles", label: "Profiles", settings: false },
  { id: "keys", href: "/portal/settings/api-keys", label: "API keys", settings: true },
  { id: "team", href: "/portal/settings/team", label: "Team", settings: true },
  { id: "webhooks", href: "/portal/settings/webhooks", label: "Webhooks", settings: true },
  { id: "activity", href: "/portal/settings/activity", label: "Activity", settings: true },
];

/** Whether the role sees the Settings pages: owners and admins; members read and work, they do not administer. */
export function managesSettings(role: PortalVisitor["user"]["role"]): boolean {
  return role === "owner" || role === "admin";
}

export const portalFrame: Frame = ({ section, children }, c) => {
  const visitor = c.var.visitor as PortalVisitor;
  const sections = SECTIONS.filter((s) => !s.settings || managesSettings(visitor.user.role));
  return (
    <>
      <header class="top">
        <a class="brand" href="/portal/orders">
          virtual-numbers
        </a>
        <nav aria-label="Main">
          {sections.map((s) => (
            <a href={s.href} aria-current={s.id === section ? "page" : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
        <div class="who">
          <span class="person">
            {visitor.user.name} · {visitor.customer.name}
          </span>
          <span class="slug" title="The account's slug, in every API path">
            {visitor.customer.slug}
          </span>
          <form method="post" action="/portal/sign-out" class="inline">
            <CsrfField token={visitor.csrfToken} />
            <button type="submit">Sign out</button>
          </form>
        </div>
      </header>
      {deploymentOf(c.env as Bindings).allowsInsecureWebhookUrls ? (
        <p class="local-mode" role="note">
          <strong>Local mode</strong> (WEBHOOK_ALLOW_INSECURE_URLS): webhook endpoints may use http:// and this computer's
          addresses.
        </p>
      ) : null}
      {children}
    </>
  );
};
