CREATE TABLE `batch_assertions` (
	`assertion` text NOT NULL,
	CONSTRAINT "batch_assertion_failed" CHECK("batch_assertions"."assertion" IS NULL)
);
