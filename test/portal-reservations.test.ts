// The portal's Find numbers and Reservations pages, and the console's view of an order's reserved numbers, inside the
// workers pool: each change made through a form checked through the API; each refusal in the API's words, beside its
// field, changing nothing.
import { describe, expect, it } from "vitest";
import { inConsole } from "./console.ts";
import { bodyOf, INDIVIDUAL_ADDRESS, type TestCustomer } from "./helpers.ts";
import { pairWithStock, reserveBySql, setAutoFulfil, stockState } from "./order-stock.ts";
import { pageText, signedIn } from "./portal.ts";

interface Reservation {
  id: string;
  status: string;
  expires_at: string;
  hold_for_profile: string | null;
  order_id: string | null;
  phone_numbers: string[];
}

const apiPath = (customer: TestCustomer, rest = "") => `/api/customers/${customer.slug}/reservations${rest}`;

async function reservationsOf(customer: TestCustomer): Promise<Reservation[]> {
  return (await bodyOf<{ data: Reservation[] }>(await customer.call(apiPath(customer)))).data;
}

async function reservationOf(customer: TestCustomer, id: string): Promise<Reservation> {
  return bodyOf<Reservation>(await customer.call(apiPath(customer, `/${id}`)));
}

/** The error paragraph a control names in aria-describedby (its id). */
function fieldError(html: string, id: string): string | undefined {
  return new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1];
}

/** The reservation id a form's redirect names. */
function reservationIdOf(answer: Response): string {
  expect(answer.status).toBe(303);
  const id = /\/portal\/reservations\/(res_[0-9a-f-]{36})\?done=reserved$/.exec(answer.headers.get("Location") ?? "")?.[1];
  if (!id) expect.fail(`not a reservation's page: ${answer.headers.get("Location")}`);
  return id;
}

describe("finding and reserving numbers in the portal", () => {
  it("a member searches a pair, reserves the numbers ticked through a profile's review, and orders them in one step", async () => {
    const { type, customer, phones } = await pairWithStock(3, "pfind");
    const member = await signedIn(customer, "member");
    const profile = await bodyOf<{ id: string }>(
      await customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, { name: "Hold me", ...INDIVIDUAL_ADDRESS }),
      201,
    );
    const search = `/portal/find-numbers?pair=US%2F${type}`;
    const found = await pageText(await member.get(search), 200);
    expect(found).toContain(`US), ${type.replaceAll("_", " ")}: a few available`);
    for (const phone of phones) expect(found).toContain(`name="phone_numbers" value="${phone}"`);
    const narrowed = await pageText(await member.get(`${search}&ends_with=${phones[1]!.slice(-7)}`), 200);
    expect(narrowed).toContain(`value="${phones[1]}"`);
    expect(narrowed).not.toContain(`value="${phones[0]}"`);

    const id = reservationIdOf(
      await member.post(`/portal/find-numbers/reserve?pair=US%2F${type}`, {
        by: "numbers",
        phone_numbers: [phones[0]!, phones[1]!],
        hold_for_profile: profile.id,
      }),
    );
    const held = await reservationOf(customer, id);
    expect(held).toMatchObject({ status: "active", hold_for_profile: profile.id, phone_numbers: [phones[0], phones[1]] });
    const page = await pageText(await member.get(`/portal/reservations/${id}`), 200);
    expect(page).toContain("Hold me</a>&#39;s review");
    expect(page).toContain(`action="/portal/reservations/${id}/order"`);
    expect(page).toContain(`href="/portal/reservations/${id}/cancel"`);
    // A hold through a review is never extended: the page offers no extension.
    expect(page).not.toContain(`/extend"`);

    const placed = await member.post(`/portal/reservations/${id}/order`, { notes: "From the portal" });
    expect(placed.status).toBe(303);
    const orderId = /^\/portal\/orders\/([0-9a-f-]{36})\?done=placed$/.exec(placed.headers.get("Location") ?? "")?.[1];
    const order = await bodyOf<Record<string, unknown>>(await customer.call(`/api/customers/${customer.slug}/orders/${orderId}`));
    expect(order).toMatchObject({ reservation_id: id, kyc_profile_id: profile.id, quantity: 2, notes: "From the portal" });
    expect((await reservationOf(customer, id)).status).toBe("ordered");
    expect(await pageText(await member.get(`/portal/orders/${orderId}`), 200)).toContain(
      `<a href="/portal/reservations/${id}">Its reservation</a>`,
    );
    // Its reservation fixed the pair and quantity: the order's form changes the rest.
    const orderPage = await pageText(await member.get(`/portal/orders/${orderId}`), 200);
    expect(orderPage).toContain('name="notes"');
    expect(orderPage).not.toContain('name="quantity"');
    const saved = await member.post(`/portal/orders/${orderId}/edit`, { notes: "Changed", kyc_profile_id: profile.id });
    expect(saved.headers.get("Location")).toBe(`/portal/orders/${orderId}?done=saved`);
    expect(await bodyOf(await customer.call(`/api/customers/${customer.slug}/orders/${orderId}`))).toMatchObject({
      notes: "Changed",
      quantity: 2,
    });
    const ordered = await pageText(await member.get(`/portal/reservations/${id}`), 200);
    expect(ordered).toContain(`href="/portal/orders/${orderId}">Order ${order.order_number}</a>`);
    const orderLink = `<a href="/portal/orders/${orderId}">${order.order_number}</a>`;
    expect(ordered).toContain(`held for order ${orderLink}`);
    expect(ordered).not.toContain(`/order"`);
    expect(ordered).not.toContain(`/cancel"`);
    // The list names the order (it does not read its status) and counts the numbers.
    const listed = await pageText(await member.get("/portal/reservations"), 200);
    expect(listed).toContain(`ordered as ${orderLink}`);
    expect(listed).toContain(`2 US ${type.replaceAll("_", " ")}`);

    // The console's order page: the reservation, and its numbers still held for the order, each linked.
    const staff = await inConsole("fulfilment");
    const consolePage = await pageText(await staff.get(`/ops/orders/${orderId}`), 200);
    expect(consolePage).toContain(`Placed from reservation ${id}`);
    expect(consolePage).toContain(`<a href="/ops/stock?search=${phones[0]!.slice(1)}">${phones[0]}</a>`);
    const stock = await pageText(await staff.get(`/ops/stock?search=${phones[1]!.slice(1)}`), 200);
    expect(stock).toContain(`held for order <a href="/ops/orders/${orderId}">${order.order_number}</a>`);
    // A held number is not offered for removal (the removal would be refused while the hold lasts).
    expect(stock).not.toContain(`aria-label="Remove ${phones[1]}…"`);

    // Once its order is cancelled, nothing is held for it: the reservation says so.
    await bodyOf(await customer.call(`/api/customers/${customer.slug}/orders/${orderId}/cancel`, { method: "POST" }));
    const done = await pageText(await member.get(`/portal/reservations/${id}`), 200);
    expect(done).toContain(`ordered as ${orderLink}, now cancelled`);
    expect(done).not.toContain("held for");
  });

  it("refuses what the API refuses, in its words beside the fields, reserving nothing", async () => {
    const { type, customer, phones } = await pairWithStock(2, "pfind-no");
    const member = await signedIn(customer, "member");
    const other = await pairWithStock(0, "pfind-other");
    await reserveBySql(other.customer, type, [phones[0]!]);
    const reserve = (fields: Record<string, string | string[]>) =>
      member.post(`/portal/find-numbers/reserve?pair=US%2F${type}`, fields);

    const taken = await pageText(await reserve({ by: "numbers", phone_numbers: [phones[0]!, phones[1]!] }), 409);
    expect(taken).toContain("1 of the numbers named is not available to reserve");
    expect(taken).toContain(`<li>${phones[0]} is not available</li>`);
    expect(taken).not.toContain(`<li>${phones[1]} is not available</li>`);
    expect(taken).toMatch(new RegExp(`value="\\${phones[1]}"[^>]*aria-describedby="phone_numbers-error"`));

    const short = await pageText(await reserve({ by: "quantity", quantity: "5" }), 409);
    expect(short).toContain(`1 ${type} numbers of US are available; 5 were asked for`);
    expect(fieldError(short, "quantity")).toBe("Quantity must be at most 1, the numbers available");

    const both = await pageText(
      await reserve({
        by: "numbers",
        phone_numbers: [phones[1]!],
        ttl_minutes: "60",
        hold_for_profile: `kyp_${crypto.randomUUID()}`,
      }),
      400,
    );
    expect(fieldError(both, "ttl_minutes")).toBe("Hold for must not be given beside hold_for_profile");

    const badSearch = await pageText(await member.get(`/portal/find-numbers?pair=US%2F${type}&contains=12a`), 400);
    expect(fieldError(badSearch, "contains")).toBe("Contains must be 1 to 15 digits (0-9), without &quot;+&quot; or spaces");
    const notOrderable = await pageText(await member.get("/portal/find-numbers?pair=US%2Fno_such_type"), 400);
    expect(fieldError(notOrderable, "pair")).toBe("Country and type cannot be ordered in US right now");

    // The console's stock page says when the other account's hold lapses.
    const staff = await inConsole("viewer");
    const stock = await pageText(await staff.get(`/ops/stock?search=${phones[0]!.slice(1)}`), 200);
    expect(stock).toMatch(/reserved until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);

    expect(await reservationsOf(customer)).toEqual([]);
    expect((await stockState([phones[1]!]))[0]).toMatchObject({ status: "available", reservation_id: null });
  });
});

describe("reservations in the portal", () => {
  it("orders a reservation of an auto_fulfil pair: the order's page says it was fulfilled at once, with its numbers", async () => {
    const { type, customer, phones } = await pairWithStock(2, "pres-auto");
    await setAutoFulfil(type, true);
    const member = await signedIn(customer, "member");
    const created = await bodyOf<Reservation>(await customer.callJson("POST", apiPath(customer), { phone_numbers: phones }), 201);
    const placed = await member.post(`/portal/reservations/${created.id}/order`);
    expect(placed.headers.get("Location")).toMatch(/^\/portal\/orders\/[0-9a-f-]{36}\?done=fulfilled$/);
    const page = await pageText(await member.follow(placed), 200);
    expect(page).toContain("The order is placed and fulfilled at once from stock: its numbers are below.");
    for (const phone of phones) expect(page).toContain(`>${phone}</a>`);
    const orderId = /\/portal\/orders\/([0-9a-f-]{36})/.exec(placed.headers.get("Location")!)![1];
    const staff = await inConsole("viewer");
    expect(await pageText(await staff.get(`/ops/orders/${orderId}`), 200)).toContain("None of its numbers is held any more.");
  });

  it("lists, extends, and cancels after the confirmation; then offers nothing and refuses a late form in the API's words", async () => {
    const { type, customer, phones } = await pairWithStock(1, "pres");
    const member = await signedIn(customer, "member");
    const created = await bodyOf<Reservation>(
      await customer.callJson("POST", apiPath(customer), { phone_numbers: phones, ttl_minutes: 30 }),
      201,
    );
    const href = `/portal/reservations/${created.id}`;
    const list = await pageText(await member.get("/portal/reservations"), 200);
    expect(list).toContain(`href="${href}"`);
    expect(list).toContain(`1 US ${type.replaceAll("_", " ")}`);
    expect(await pageText(await member.get("/portal/reservations?status=cancelled"), 200)).not.toContain(href);

    const tooLong = await pageText(await member.post(`${href}/extend`, { ttl_minutes: "2000" }), 400);
    expect(fieldError(tooLong, "ttl_minutes")).toBe("Hold for must be at most 1440");
    const before = Date.now();
    expect((await member.post(`${href}/extend`, { ttl_minutes: "120" })).headers.get("Location")).toBe(`${href}?done=extended`);
    const extended = Date.parse((await reservationOf(customer, created.id)).expires_at);
    expect(extended).toBeGreaterThanOrEqual(before + 120 * 60_000);
    expect(extended).toBeLessThanOrEqual(Date.now() + 120 * 60_000);

    expect(await pageText(await member.get(`${href}/cancel`), 200)).toContain("Cancel the reservation of 1 number?");
    expect((await member.post(`${href}/cancel`)).headers.get("Location")).toBe(`${href}?done=cancelled`);
    expect((await reservationOf(customer, created.id)).status).toBe("cancelled");
    expect((await stockState(phones))[0]).toMatchObject({ status: "available" });
    const ended = await pageText(await member.get(href), 200);
    for (const form of ["/extend", "/cancel", "/order"]) expect(ended).not.toContain(`${href}${form}"`);
    const late = await pageText(await member.post(`${href}/extend`, { ttl_minutes: "60" }), 409);
    expect(late).toContain("Only active reservations can be extended; this reservation is cancelled");
    expect(await pageText(await member.post(`${href}/order`), 409)).toContain(
      "Only an active reservation can be ordered; this one is cancelled",
    );
    expect((await reservationOf(customer, created.id)).status).toBe("cancelled");
  });

  it("answers another account's reservation with the not-found page, changing nothing", async () => {
    const { type, customer, phones } = await pairWithStock(1, "pres-own");
    const id = await reserveBySql(customer, type, phones);
    const stranger = await signedIn((await pairWithStock(0, "pres-stranger")).customer, "owner");
    const href = `/portal/reservations/res_${id}`;
    expect(await pageText(await stranger.get(href), 404)).toContain("Reservation not found");
    await pageText(await stranger.post(`${href}/cancel`), 404);
    await pageText(await stranger.post(`${href}/extend`, { ttl_minutes: "60" }), 404);
    await pageText(await stranger.post(`${href}/order`), 404);
    expect((await reservationOf(customer, `res_${id}`)).status).toBe("active");
  });
});
