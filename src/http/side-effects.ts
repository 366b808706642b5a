// Makes side effects wait for the request's credential check. A known API key is re-checked with the first D1 call, so
// a handler acting first (an R2 write, a queue send) could act for a revoked key; wrapping the bindings prevents that
// whatever the handler does. Biome forbids the global fetch outside the webhook sender for the same reason.
import type { Bindings } from "../env.ts";

/** What each binding does that changes something: the methods that wait for the check. */
const SIDE_EFFECTS = {
  DOCUMENTS: ["put", "delete", "createMultipartUpload"],
  WEBHOOK_DELIVERIES: ["send", "sendBatch"],
} as const satisfies Partial<Record<keyof Bindings, readonly string[]>>;

/** What an R2 multipart upload resumed (synchronously, without a call) does that changes something. */
const MULTIPART_SIDE_EFFECTS = ["uploadPart", "complete", "abort"] as const;

/**
 * A credential that turned out no longer to hold when an act asked (a revoked key, a disabled staff member): the
 * guard answers its refusal instead (src/http/carried-check.ts).
 */
export class RefusedCredential extends Error {
  override name = "RefusedCredential";
}

function gated<T extends object>(binding: T, methods: readonly string[], confirm: () => Promise<void>): T {
  return new Proxy(binding, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (!methods.includes(String(property))) return value.bind(target);
      return async (...args: unknown[]) => {
        await confirm();
        return value.apply(target, args);
      };
    },
  });
}

/** The bindings, each side effect of which first awaits `confirm` (which throws RefusedCredential when it fails). */
export function sideEffectsAfter(env: Bindings, confirm: () => Promise<void>): Bindings {
  const documents = gated(env.DOCUMENTS, SIDE_EFFECTS.DOCUMENTS, confirm);
  return {
    ...env,
    DOCUMENTS: new Proxy(documents, {
      get(target, property) {
        if (property !== "resumeMultipartUpload") return Reflect.get(target, property, target);
        return (key: string, uploadId: string) =>
          gated(env.DOCUMENTS.resumeMultipartUpload(key, uploadId), MULTIPART_SIDE_EFFECTS, confirm);
      },
    }),
    WEBHOOK_DELIVERIES: gated(env.WEBHOOK_DELIVERIES, SIDE_EFFECTS.WEBHOOK_DELIVERIES, confirm),
  };
}
