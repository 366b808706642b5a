// Every table, index and constraint of the service, by feature; drizzle-kit reads them here, and so do the stores.
export * from "./schema/accounts.ts";
export * from "./schema/events.ts";
export * from "./schema/kyc-vocabulary.ts";
export * from "./schema/numbers.ts";
export * from "./schema/operator.ts";
