// The portal's forms of a number's life (release with its preview, restore, tags, a number's details, the export)
// inside the workers pool: what each form changes, checked through the API, and what it refuses without changing
// anything.
import { describe, expect, it } from "vitest";
import { allocateNumbers, bodyOf, createCustomer, type TestCustomer } from "./helpers.ts";
import { pageText, postForm, signedIn } from "./portal.ts";

interface NumberItem {
  number_id: string;
  phone_number: string;
  status: string;
  restorable_until: string | null;
  tags: string[];
  customer_reference: string | null;
  release_protected: boolean;
}

async function numberOf(customer: TestCustomer, id: string): Promise<NumberItem> {
  return bodyOf<NumberItem>(await customer.call(`/api/customers/${customer.slug}/numbers/${id}`));
}

/** The error paragraph a control names in aria-describedby. */
function fieldError(html: string, id: string): string | undefined {
  return new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1];
}

describe("the portal's number life forms", () => {
  it("a member previews, confirms, restores and tags numbers; the owner sees the release in Activity", async () => {
    const customer = await createCustomer("plife");
    const [a, b, c] = (await allocateNumbers(customer, 3)).map((n) => n.number_id) as [string, string, string];
    const member = await signedIn(customer, "member");

    const list = await pageText(await member.get("/portal/numbers"), 200);
    expect(list).toContain('formaction="/portal/numbers/release/preview"');
    expect(list).toContain('href="/portal/numbers/export"');

    // The preview changes nothing and names what the release will do.
    const preview = await pageText(await member.post("/portal/numbers/release/preview", { number_ids: [a, b] }), 200);
    expect(preview).toContain("Release 2 numbers?");
    expect(preview).toContain("Will be released");
    expect(preview).toContain('action="/portal/numbers/release"');
    expect((await numberOf(customer, a)).status).toBe("active");

    const released = await member.post("/portal/numbers/release", { number_ids: [a, b] });
    expect(released.headers.get("Location")).toBe("/portal/numbers");
    const report = await pageText(await member.follow(released), 200);
    expect(report).toContain("Release report");
    expect(report).toContain("Released (2)");
    expect(report).toMatch(/restorable until <time/);
    const after = await numberOf(customer, a);
    expect(after.status).toBe("released");

    // A released number's page offers Restore, not Release, and no address form.
    const page = await pageText(await member.get(`/portal/numbers/${a}`), 200);
    expect(page).toContain(`action="/portal/numbers/${a}/restore"`);
    expect(page).not.toContain(`action="/portal/numbers/${a}/release/preview"`);
    expect(page).not.toContain(`action="/portal/numbers/${a}/address"`);
    // A released number is offered nothing to submit: only its restore.
    expect(page).not.toContain("you may still submit the address");
    expect(page).toContain("Restorable until");

    const restored = await member.post(`/portal/numbers/${a}/restore`);
    expect(restored.headers.get("Location")).toBe(`/portal/numbers/${a}`);
    expect(await pageText(await member.follow(restored), 200)).toContain("Restored (1)");
    expect((await numberOf(customer, a)).status).toBe("active");

    const tagged = await member.post("/portal/numbers/tags?status=active", {
      number_ids: [a, c],
      tags: "vip, team:support",
      tag_change: "add",
    });
    expect(tagged.headers.get("Location")).toBe("/portal/numbers?status=active");
    expect(await pageText(await member.follow(tagged), 200)).toContain("Tags changed (2)");
    expect((await numberOf(customer, c)).tags).toEqual(["vip", "team:support"]);
    const untagged = await member.post("/portal/numbers/tags", { number_ids: [c], tags: "VIP", tag_change: "remove" });
    expect(untagged.status).toBe(303);
    expect((await numberOf(customer, c)).tags).toEqual(["team:support"]);

    // Every number the filters match: the tag vip is a's alone now.
    const matching = await member.post("/portal/numbers/release/preview?tag=vip", { scope: "matching" });
    expect(await pageText(matching, 200)).toContain("Release 1 number?");

    const owner = await signedIn(customer, "owner");
    const activity = await pageText(await owner.get("/portal/settings/activity"), 200);
    expect(activity).toContain("Number released");
    expect(activity).toContain("Number restored");
  });

  it("a number's tags, reference and protection: saved through the API's rules, a protected number is not released", async () => {
    const customer = await createCustomer("pdetails");
    const [a] = (await allocateNumbers(customer, 1)).map((n) => n.number_id) as [string];
    const member = await signedIn(customer, "member");
    const saved = await member.post(`/portal/numbers/${a}/settings`, {
      tags: "one, two",
      customer_reference: "CRM-7",
      release_protected: "on",
    });
    expect(saved.headers.get("Location")).toBe(`/portal/numbers/${a}?done=details`);
    const details = await numberOf(customer, a);
    expect(details).toMatchObject({ tags: ["one", "two"], customer_reference: "CRM-7", release_protected: true });

    // The page offers no release of a protected number; the form's release reports the protection.
    expect(await pageText(await member.get(`/portal/numbers/${a}`), 200)).not.toContain("/release/preview");
    const preview = await pageText(await member.post(`/portal/numbers/${a}/release/preview`), 200);
    expect(preview).toContain("Protected from release");
    expect(preview).toContain("None of these numbers can be released");
    const forced = await member.post(`/portal/numbers/${a}/release`);
    expect(await pageText(await member.follow(forced), 200)).toContain("Protected from release");
    expect((await numberOf(customer, a)).status).toBe("active");

    // A bad tag or reference: the API's words beside the field, nothing saved.
    const bad = await pageText(
      await member.post(`/portal/numbers/${a}/settings`, { tags: "ok, bad!", customer_reference: "x" }),
      400,
    );
    expect(fieldError(bad, "tags")).toContain("must be 1 to 64 letters");
    expect(await numberOf(customer, a)).toEqual(details);
  });

  it("refuses what the API refuses, beside the field, changing nothing", async () => {
    const customer = await createCustomer("prefuse");
    const other = await createCustomer("pother");
    const [a] = (await allocateNumbers(customer, 1)).map((n) => n.number_id) as [string];
    const [theirs] = (await allocateNumbers(other, 1)).map((n) => n.number_id) as [string];
    const member = await signedIn(customer, "member");

    // A form without the session's CSRF token (forged elsewhere) is refused before anything runs.
    const forged = await postForm("/portal/numbers/release", { number_ids: [a] }, { Cookie: member.cookie });
    expect(forged.status).toBe(403);
    expect((await numberOf(customer, a)).status).toBe("active");

    const none = await pageText(await member.post("/portal/numbers/release/preview", {}), 400);
    expect(fieldError(none, "act-number_ids")).toMatch(/^Numbers /);
    const noTags = await pageText(
      await member.post("/portal/numbers/tags", { number_ids: [a], tags: " ", tag_change: "add" }),
      400,
    );
    expect(fieldError(noTags, "tags")).toBeDefined();
    expect(fieldError(noTags, "act-number_ids")).toBeUndefined();

    // Another account's number is none of this one's: its page is 404, its release reports it not found.
    expect((await member.post(`/portal/numbers/${theirs}/restore`)).status).toBe(404);
    const foreign = await member.post("/portal/numbers/release", { number_ids: [theirs] });
    expect(await pageText(await member.follow(foreign), 200)).toContain("Not found");
    expect((await numberOf(other, theirs)).status).toBe("active");

    // A released number's details are refused with the API's words (409).
    await bodyOf(await customer.callJson("POST", `/api/customers/${customer.slug}/numbers/release`, { number_ids: [a] }));
    const refused = await pageText(await member.post(`/portal/numbers/${a}/settings`, { tags: "x" }), 409);
    expect(refused).toContain("This number is released: restore it before changing its tags, reference or protection");
    expect((await numberOf(customer, a)).tags).toEqual([]);
  });

  it("every number the filters match is at most 1,000: more is the form's error", async () => {
    const customer = await createCustomer("pmany");
    await allocateNumbers(customer, 1001);
    const member = await signedIn(customer, "member");
    const many = await pageText(
      await member.post("/portal/numbers/tags", { scope: "matching", tags: "x", tag_change: "add" }),
      400,
    );
    expect(fieldError(many, "act-number_ids")).toContain("more than 1,000 numbers");
    const tagged = await bodyOf<{ data: NumberItem[] }>(
      await customer.call(`/api/customers/${customer.slug}/numbers?tag=x&limit=1`),
    );
    expect(tagged.data).toEqual([]);
  });

  it("exports the list's numbers for its filters as the API's CSV", async () => {
    const customer = await createCustomer("pexport");
    const numbers = await allocateNumbers(customer, 2);
    const [a, b] = [numbers[0]!, numbers[1]!];
    await bodyOf(await customer.callJson("PATCH", `/api/customers/${customer.slug}/numbers/${a.number_id}`, { tags: ["keep"] }));
    const member = await signedIn(customer, "member");
    const csv = await member.get("/portal/numbers/export?tag=keep");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("Content-Disposition")).toMatch(
      new RegExp(`^attachment; filename="numbers-${customer.slug}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`),
    );
    const text = await csv.text();
    expect(text).toContain(a.phone_number);
    expect(text).not.toContain(b.phone_number);
    const api = await customer.call(`/api/customers/${customer.slug}/numbers/export?tag=keep`);
    expect(text).toBe(await api.text());
  });
});
