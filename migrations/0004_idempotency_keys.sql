CREATE TABLE `idempotency_keys` (
	`scope` text NOT NULL,
	`key_hash` text NOT NULL,
	`fingerprint` text NOT NULL,
	`claim` text NOT NULL,
	`created_at` integer NOT NULL,
	`status` integer,
	`response` text,
	PRIMARY KEY(`scope`, `key_hash`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);