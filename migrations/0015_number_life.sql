-- A number's life after allocation (LIFECYCLE.md): tenure columns on numbers (one unclosed tenure per phone number),
-- number_tags, catalog_settings, stock status and quarantine, per-status stock counts, number_released on
-- verifications, and the number.* event types. Only events is rebuilt (its CHECK lists the types); webhook_deliveries
-- references it, so foreign keys are checked at the end of the migration's transaction, and event_counts' triggers
-- (migrations/0006) dropped with the table are made again as they were. Triggers and backfills: migrations/0016.
CREATE TABLE `catalog_settings` (
	`country_code` text NOT NULL,
	`number_type` text NOT NULL,
	`quarantine_days` integer DEFAULT 90 NOT NULL,
	`auto_fulfil` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`country_code`, `number_type`),
	CONSTRAINT "catalog_settings_quarantine_days_range" CHECK("catalog_settings"."quarantine_days" BETWEEN 0 AND 365)
);
--> statement-breakpoint
CREATE TABLE `number_tags` (
	`number_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`tag_key` text NOT NULL,
	PRIMARY KEY(`number_id`, `tag_key`)
);
--> statement-breakpoint
CREATE INDEX `number_tags_customer_tag_idx` ON `number_tags` (`customer_id`,`tag_key`,`number_id`);--> statement-breakpoint
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__new_events` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "events_type_valid" CHECK("__new_events"."type" IN ('order.created', 'order.updated', 'order.processing', 'order.numbers_allocated', 'order.fulfilled', 'order.cancelled', 'kyc.submitted', 'kyc.updated', 'kyc.under_review', 'kyc.approved', 'kyc.rejected', 'kyc.document_uploaded', 'kyc.document_deleted', 'kyc.deleted', 'kyc.expiring', 'kyc.expired', 'kyc_profile.submitted', 'kyc_profile.updated', 'kyc_profile.under_review', 'kyc_profile.approved', 'kyc_profile.rejected', 'kyc_profile.deleted', 'kyc_profile.document_uploaded', 'kyc_profile.document_deleted', 'kyc_profile.numbers_attached', 'kyc_profile.numbers_detached', 'kyc_profile.expiring', 'kyc_profile.expired', 'number.released', 'number.restored', 'number.suspended', 'number.resumed', 'number.updated', 'webhook.test'))
);
--> statement-breakpoint
INSERT INTO `__new_events`("id", "customer_id", "type", "data", "created_at") SELECT "id", "customer_id", "type", "data", "created_at" FROM `events`;--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
CREATE INDEX `events_customer_created_idx` ON `events` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_customer_type_created_idx` ON `events` (`customer_id`,`type`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_created_idx` ON `events` (`created_at`);--> statement-breakpoint
CREATE TRIGGER event_counts_insert AFTER INSERT ON events BEGIN
  INSERT INTO event_counts (customer_id, type, count) VALUES (NEW.customer_id, NEW.type, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER event_counts_delete AFTER DELETE ON events BEGIN
  UPDATE event_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND type = OLD.type;
  DELETE FROM event_counts WHERE customer_id = OLD.customer_id AND type = OLD.type AND count = 0;
END;
--> statement-breakpoint
DROP INDEX `numbers_phone_number_unique`;--> statement-breakpoint
ALTER TABLE `numbers` ADD `released_at` integer;--> statement-breakpoint
ALTER TABLE `numbers` ADD `restorable_until` integer;--> statement-breakpoint
ALTER TABLE `numbers` ADD `release_reason` text;--> statement-breakpoint
ALTER TABLE `numbers` ADD `suspended_at` integer;--> statement-breakpoint
ALTER TABLE `numbers` ADD `suspension_reason` text;--> statement-breakpoint
ALTER TABLE `numbers` ADD `release_protected` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `numbers` ADD `tags` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `numbers` ADD `customer_reference` text;--> statement-breakpoint
ALTER TABLE `numbers` ADD `released_profile_id` text REFERENCES kyc_verifications(id);--> statement-breakpoint
ALTER TABLE `numbers` ADD `closed_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `numbers_phone_number_held_unique` ON `numbers` (`phone_number`) WHERE "numbers"."closed_at" IS NULL;--> statement-breakpoint
CREATE INDEX `numbers_phone_number_idx` ON `numbers` (`phone_number`,`created_at`);--> statement-breakpoint
CREATE INDEX `numbers_created_idx` ON `numbers` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_status_created_idx` ON `numbers` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_pair_created_idx` ON `numbers` (`country_code`,`number_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_customer_reference_idx` ON `numbers` (`customer_id`,`customer_reference`) WHERE "numbers"."customer_reference" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `numbers_customer_released_idx` ON `numbers` (`customer_id`,`released_at`,`id`) WHERE "numbers"."released_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `numbers_release_due_idx` ON `numbers` (`restorable_until`) WHERE "numbers"."status" = 'released' AND "numbers"."closed_at" IS NULL;--> statement-breakpoint
DROP INDEX `stock_numbers_pair_imported_idx`;--> statement-breakpoint
ALTER TABLE `stock_numbers` ADD `status` text DEFAULT 'available' NOT NULL;--> statement-breakpoint
ALTER TABLE `stock_numbers` ADD `available_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stock_numbers` ADD `source` text DEFAULT 'import' NOT NULL;--> statement-breakpoint
CREATE INDEX `stock_numbers_pair_available_idx` ON `stock_numbers` (`country_code`,`number_type`,`available_at`,`imported_at`,`phone_number`) WHERE "stock_numbers"."status" = 'available';--> statement-breakpoint
CREATE INDEX `stock_numbers_quarantine_due_idx` ON `stock_numbers` (`available_at`) WHERE "stock_numbers"."status" = 'quarantined';--> statement-breakpoint
CREATE INDEX `stock_numbers_status_imported_idx` ON `stock_numbers` (`status`,"imported_at" desc,`phone_number`);--> statement-breakpoint
DROP INDEX `kyc_verifications_status_submitted_idx`;--> statement-breakpoint
DROP INDEX `kyc_verifications_customer_status_submitted_idx`;--> statement-breakpoint
ALTER TABLE `kyc_verifications` ADD `number_released` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `kyc_verifications_status_submitted_idx` ON `kyc_verifications` (`status`,`number_released`,`submitted_at`,`id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_customer_status_submitted_idx` ON `kyc_verifications` (`customer_id`,`status`,`number_released`,`submitted_at`,`id`);--> statement-breakpoint
ALTER TABLE `stock_counts` ADD `available` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stock_counts` ADD `quarantined` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stock_counts` ADD `reserved` integer DEFAULT 0 NOT NULL;