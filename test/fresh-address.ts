// Setup file: every test sends from a client address of its own (test/helpers.ts, renewTestAddress).
import { beforeEach } from "vitest";
import { renewTestAddress } from "./helpers.ts";

// The file's own hooks (beforeAll) send from one of their own too.
renewTestAddress();
beforeEach(renewTestAddress);
