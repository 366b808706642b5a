// Bulk writes read first, then write in one batch guarded by an assertion that what they read still stands; a
// concurrent change fails the assertion, rolls the whole batch back, and the write is done again from a fresh read.
import { isFailedBatchAssertion } from "./errors.ts";

/** How often such a write is done again before its error is let through. */
const ATTEMPTS = 10;

/** Runs `attempt` again while a concurrent change fails its batch assertion. */
export async function retryingRaces<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= ATTEMPTS || !isFailedBatchAssertion(error)) throw error;
    }
  }
}
