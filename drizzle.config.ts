// drizzle-kit reads the schema and writes flat SQL migrations that `wrangler d1 migrations apply` runs.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
