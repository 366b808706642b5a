// The schema entry point that drizzle-kit and the stores read.
export * from "./schema/accounts.ts";
export * from "./schema/events.ts";
export * from "./schema/kyc-vocabulary.ts";
export * from "./schema/numbers.ts";
export * from "./schema/operator.ts";
export * from "./schema/reservations.ts";
