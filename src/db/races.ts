// Retrying a read-then-write change whose batch assertion found that a concurrent change got between the two.
import { isFailedBatchAssertion } from "./errors.ts";

/** How often a change is done again when a concurrent change got between its read and its write. */
const ATTEMPTS = 10;

/** Runs `attempt` again (from its read) while a concurrent change fails its batch assertion. */
export async function retryingRaces<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= ATTEMPTS || !isFailedBatchAssertion(error)) throw error;
    }
  }
}
