-- Compliance at bulk scale (COMPLIANCE.md): requirements per catalog pair, profiles (verifications with a name and no
-- number) that numbers join, structured rejection reasons, expiry notices, the new event types.
-- events and kyc_verifications are rebuilt (a CHECK and a NOT NULL change); other tables reference both, so foreign
-- keys are checked at the end of the migration's transaction, and the triggers dropped with the tables (event_counts
-- of migrations/0006, kyc_counts of migrations/0011) are made again as they were.
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__new_events` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "events_type_valid" CHECK("__new_events"."type" IN ('order.created', 'order.updated', 'order.processing', 'order.numbers_allocated', 'order.fulfilled', 'order.cancelled', 'kyc.submitted', 'kyc.updated', 'kyc.under_review', 'kyc.approved', 'kyc.rejected', 'kyc.document_uploaded', 'kyc.document_deleted', 'kyc.deleted', 'kyc.expiring', 'kyc.expired', 'kyc_profile.submitted', 'kyc_profile.updated', 'kyc_profile.under_review', 'kyc_profile.approved', 'kyc_profile.rejected', 'kyc_profile.deleted', 'kyc_profile.document_uploaded', 'kyc_profile.document_deleted', 'kyc_profile.numbers_attached', 'kyc_profile.numbers_detached', 'kyc_profile.expiring', 'kyc_profile.expired', 'webhook.test'))
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
CREATE TABLE `__new_kyc_verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`number_id` text,
	`name` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`type` text NOT NULL,
	`address_line_1` text NOT NULL,
	`address_line_2` text,
	`city` text NOT NULL,
	`state_province` text NOT NULL,
	`postal_code` text NOT NULL,
	`country` text NOT NULL,
	`company_name` text,
	`tax_id` text,
	`contact_person` text,
	`phone_number` text,
	`email` text,
	`submitted_at` integer NOT NULL,
	`updated_at` integer,
	`reviewed_at` integer,
	`rejection_reason` text,
	`rejection_reasons` text DEFAULT '[]' NOT NULL,
	`expires_at` integer,
	`expiry_notice` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`number_id`) REFERENCES `numbers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "kyc_number_or_profile" CHECK(("__new_kyc_verifications"."number_id" IS NULL) = ("__new_kyc_verifications"."name" IS NOT NULL)),
	CONSTRAINT "kyc_status_valid" CHECK("__new_kyc_verifications"."status" IN ('pending', 'under_review', 'approved', 'rejected')),
	CONSTRAINT "kyc_type_valid" CHECK("__new_kyc_verifications"."type" IN ('individual', 'business')),
	CONSTRAINT "kyc_business_has_company" CHECK("__new_kyc_verifications"."type" = 'individual' OR "__new_kyc_verifications"."company_name" IS NOT NULL)
);
--> statement-breakpoint
INSERT INTO `__new_kyc_verifications`("id", "customer_id", "number_id", "status", "type", "address_line_1", "address_line_2", "city", "state_province", "postal_code", "country", "company_name", "tax_id", "contact_person", "phone_number", "email", "submitted_at", "updated_at", "reviewed_at", "rejection_reason", "expires_at") SELECT "id", "customer_id", "number_id", "status", "type", "address_line_1", "address_line_2", "city", "state_province", "postal_code", "country", "company_name", "tax_id", "contact_person", "phone_number", "email", "submitted_at", "updated_at", "reviewed_at", "rejection_reason", "expires_at" FROM `kyc_verifications`;--> statement-breakpoint
DROP TABLE `kyc_verifications`;--> statement-breakpoint
ALTER TABLE `__new_kyc_verifications` RENAME TO `kyc_verifications`;--> statement-breakpoint
CREATE UNIQUE INDEX `kyc_verifications_number_unique` ON `kyc_verifications` (`number_id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_profile_name_idx` ON `kyc_verifications` (`customer_id`,`name`) WHERE "kyc_verifications"."number_id" IS NULL;--> statement-breakpoint
CREATE INDEX `kyc_verifications_expires_idx` ON `kyc_verifications` (`expires_at`) WHERE "kyc_verifications"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `kyc_verifications_customer_expires_idx` ON `kyc_verifications` (`customer_id`,`expires_at`) WHERE "kyc_verifications"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `kyc_verifications_customer_idx` ON `kyc_verifications` (`customer_id`,`id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_status_submitted_idx` ON `kyc_verifications` (`status`,`submitted_at`,`id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_customer_status_submitted_idx` ON `kyc_verifications` (`customer_id`,`status`,`submitted_at`,`id`);--> statement-breakpoint
CREATE TRIGGER kyc_counts_insert AFTER INSERT ON kyc_verifications BEGIN
  INSERT INTO kyc_counts (customer_id, status, count) VALUES (NEW.customer_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
  INSERT INTO kyc_totals (status, count) VALUES (NEW.status, 1) ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER kyc_counts_delete AFTER DELETE ON kyc_verifications BEGIN
  UPDATE kyc_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND status = OLD.status;
  DELETE FROM kyc_counts WHERE customer_id = OLD.customer_id AND status = OLD.status AND count = 0;
  UPDATE kyc_totals SET count = count - 1 WHERE status = OLD.status;
  DELETE FROM kyc_totals WHERE status = OLD.status AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER kyc_counts_update AFTER UPDATE OF customer_id, status ON kyc_verifications
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.status IS NOT NEW.status
BEGIN
  UPDATE kyc_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND status = OLD.status;
  DELETE FROM kyc_counts WHERE customer_id = OLD.customer_id AND status = OLD.status AND count = 0;
  UPDATE kyc_totals SET count = count - 1 WHERE status = OLD.status;
  DELETE FROM kyc_totals WHERE status = OLD.status AND count = 0;
  INSERT INTO kyc_counts (customer_id, status, count) VALUES (NEW.customer_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
  INSERT INTO kyc_totals (status, count) VALUES (NEW.status, 1) ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
ALTER TABLE `catalog` ADD `requirements` text;--> statement-breakpoint
ALTER TABLE `kyc_documents` ADD `rejection_reasons` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `kyc_profile_id` text REFERENCES kyc_verifications(id);--> statement-breakpoint
CREATE INDEX `orders_kyc_profile_idx` ON `orders` (`kyc_profile_id`,`status`) WHERE "orders"."kyc_profile_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `kyc_profile_numbers` (
	`number_id` text PRIMARY KEY NOT NULL,
	`kyc_id` text NOT NULL,
	`profile_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`attached_at` integer NOT NULL,
	FOREIGN KEY (`number_id`) REFERENCES `numbers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`profile_id`) REFERENCES `kyc_verifications`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kyc_profile_numbers_kyc_unique` ON `kyc_profile_numbers` (`kyc_id`);--> statement-breakpoint
CREATE INDEX `kyc_profile_numbers_profile_idx` ON `kyc_profile_numbers` (`profile_id`,`number_id`);--> statement-breakpoint
