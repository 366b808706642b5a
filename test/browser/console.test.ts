// The operator's console in a browser: signing in by the console's link (as Cloudflare Access would sign a person in)
// lands on the console's home, which names the person, their role and what it may change.
import { expect, it } from "vitest";
import { usePortal } from "./helpers.ts";

const portal = usePortal();

it("signs a staff member in by link: the home names them and what their role may change", async () => {
  const { page, email } = await portal.signInToConsole("fulfilment");
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Signed in as Sam Fulfilment");
  expect(await page.locator("dl.facts").textContent()).toContain(email);
  expect(await page.getByRole("listitem").allTextContents()).toContain(
    "You change order status moves and allocations (listed numbers or from stock).",
  );
});
