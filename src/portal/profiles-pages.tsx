// The portal's Profiles list and profile creation.
import type { Context } from "hono";
import { KYC_TYPE_WORDS } from "../compliance/types.ts";
import { pageWindow } from "../db/paging.ts";
import { KYC_STATUSES, KYC_TYPES } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { listProfiles } from "../kyc/profiles-store.ts";
import { createProfileBody, listProfilesQuery, toNewVerification, toProfileListQuery } from "../kyc/schemas.ts";
import { createProfile } from "../kyc/use-cases.ts";
import type { FormState } from "../kyc/views.tsx";
import { withPrefix } from "../lib/ids.ts";
import { Badge, CsrfField, Notice, Pager, Table } from "../ui/components.tsx";
import { dateTime, withQuery } from "../ui/format.ts";
import { fieldMessages, PerPageField, readForm, Select, SortFields, TextInput } from "../ui/forms.tsx";
import { FilterForm, listFilters, StatusFilterField } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { AddressFields, submittedAddress } from "./kyc-parts.tsx";

type Messages = Record<string, string>;

export const PROFILES = "/portal/profiles";

/** A profile's page. */
export const profileHref = (profileId: string) => `${PROFILES}/${withPrefix("kyp", profileId)}`;

function ProfileFilters({ values, errors }: { values: Record<string, string>; errors: Messages }) {
  return (
    <FilterForm action={PROFILES} values={values}>
      <TextInput name="search" label="Search" value={values.search} error={errors.search} hint="A part of the name" />
      <StatusFilterField values={values} errors={errors} statuses={KYC_STATUSES} />
      <Select
        name="type"
        label="For"
        value={values.type}
        blank="Anyone"
        options={KYC_TYPES.map((type) => [type, KYC_TYPE_WORDS[type]] as const)}
        error={errors.type}
      />
      <SortFields query={listProfilesQuery} values={values} errors={errors} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

function newProfilePage(c: Context<PortalEnv>, form: FormState, status: 200 | 400 = 200) {
  return renderPage(
    c,
    { title: "New profile", section: "profiles" },
    <>
      <p>
        <a href={PROFILES}>← Profiles</a>
      </p>
      <h1>New profile</h1>
      <p class="muted">
        A profile is verified once and used for many numbers: its address and documents stand for every number attached to it.
      </p>
      <form method="post" action={`${PROFILES}/new`} class="stack card" novalidate>
        <CsrfField token={c.var.visitor.csrfToken} />
        <TextInput
          name="name"
          label="Profile name"
          value={form.values.name}
          error={form.errors.name}
          maxlength={100}
          hint="For telling profiles apart, e.g. Berlin office"
        />
        <AddressFields values={form.values} errors={form.errors} withType={true} />
        <div class="actions">
          <button type="submit">Create profile</button>
          <a href={PROFILES}>Cancel</a>
        </div>
      </form>
    </>,
    status,
  );
}
/** The profiles list and the new profile form, mounted under /portal. */
export const profilePages = createRouter<PortalEnv>()
  .get("/profiles", async (c) => {
    const filters = listFilters(c, listProfilesQuery, { title: "Profiles", section: "profiles" }, ProfileFilters);
    if ("answer" in filters) return filters.answer;
    const { raw, query } = filters;
    const window = pageWindow(query.page, query.limit);
    const list = await listProfiles(c.var.db, c.var.visitor.customer.id, toProfileListQuery(query), window);
    const meta = pageMeta(window, list.total);
    const done = c.req.query("done") === "deleted" ? "The profile is deleted." : undefined;
    return renderPage(
      c,
      { title: "Profiles", section: "profiles" },
      <>
        <div class="page-head">
          <h1>Profiles</h1>
          <a class="button" href={`${PROFILES}/new`}>
            New profile
          </a>
        </div>
        {done ? <Notice kind="success">{done}</Notice> : null}
        <p class="muted">
          Verify an address and its documents once, then attach many numbers to it: they share its verification.
        </p>
        <ProfileFilters values={raw} errors={{}} />
        {list.rows.length === 0 ? (
          <div class="card empty">
            <p>
              No profiles match. <a href={`${PROFILES}/new`}>Create a profile</a>.
            </p>
          </div>
        ) : (
          <Table
            label="Profiles"
            rows={list.rows}
            columns={[
              { label: "Name", cell: (p) => <a href={profileHref(p.verification.id)}>{p.verification.name}</a> },
              { label: "For", cell: (p) => KYC_TYPE_WORDS[p.verification.type] },
              { label: "Status", cell: (p) => <Badge status={p.verification.status} /> },
              { label: "Numbers", cell: (p) => p.numberCount },
              { label: "Documents", cell: (p) => p.documents.length },
              { label: "Created", cell: (p) => dateTime(p.verification.submittedAt) },
            ]}
          />
        )}
        <Pager meta={meta} noun="profile" hrefOf={(page) => `${PROFILES}${withQuery(raw, { page: String(page) })}`} />
      </>,
    );
  })
  .get("/profiles/new", (c) => newProfilePage(c, { values: {}, errors: {} }))
  .post("/profiles/new", async (c) => {
    const form = (await readForm(c)).fields;
    const parsed = createProfileBody.safeParse({ name: form.name ?? "", ...submittedAddress(form) });
    if (!parsed.success) return newProfilePage(c, { values: form, errors: fieldMessages(parsed.error.issues) }, 400);
    const { name, ...address } = parsed.data;
    const profile = await createProfile(workOf(c), c.var.visitor.customer.id, name, toNewVerification(address));
    return c.redirect(`${profileHref(profile.id)}?done=created`, 303);
  });
