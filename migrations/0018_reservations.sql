-- Search and reservations before the order (LIFECYCLE.md): reservations and their numbers, the reservation an order
-- was placed from, a stock number's hold (reservation_id, held_until) with the search's and the holds' indexes, and the
-- reservation.* event types. Only events is rebuilt (its CHECK lists the types), as in migrations/0015: foreign keys
-- checked at the end of the transaction, event_counts' triggers made again. Triggers and the suffix index: 0019.
CREATE TABLE `reservation_numbers` (
	`reservation_id` text NOT NULL,
	`phone_number` text NOT NULL,
	PRIMARY KEY(`reservation_id`, `phone_number`),
	FOREIGN KEY (`reservation_id`) REFERENCES `reservations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `reservations` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`country_code` text NOT NULL,
	`number_type` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`quantity` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`hold_for_profile` text,
	`order_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "reservations_status_valid" CHECK("reservations"."status" IN ('active', 'ordered', 'expired', 'cancelled')),
	CONSTRAINT "reservations_quantity_range" CHECK("reservations"."quantity" BETWEEN 1 AND 1000)
);
--> statement-breakpoint
CREATE INDEX `reservations_customer_created_idx` ON `reservations` (`customer_id`,"created_at" desc,`id`);--> statement-breakpoint
CREATE INDEX `reservations_customer_status_created_idx` ON `reservations` (`customer_id`,`status`,"created_at" desc,`id`);--> statement-breakpoint
CREATE INDEX `reservations_customer_active_idx` ON `reservations` (`customer_id`,`expires_at`,`quantity`) WHERE "reservations"."status" = 'active';--> statement-breakpoint
CREATE INDEX `reservations_active_expires_idx` ON `reservations` (`expires_at`) WHERE "reservations"."status" = 'active';--> statement-breakpoint
CREATE INDEX `reservations_profile_idx` ON `reservations` (`hold_for_profile`) WHERE "reservations"."hold_for_profile" IS NOT NULL AND "reservations"."status" = 'active';--> statement-breakpoint
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__new_events` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "events_type_valid" CHECK("__new_events"."type" IN ('order.created', 'order.updated', 'order.processing', 'order.numbers_allocated', 'order.fulfilled', 'order.cancelled', 'kyc.submitted', 'kyc.updated', 'kyc.under_review', 'kyc.approved', 'kyc.rejected', 'kyc.document_uploaded', 'kyc.document_deleted', 'kyc.deleted', 'kyc.expiring', 'kyc.expired', 'kyc_profile.submitted', 'kyc_profile.updated', 'kyc_profile.under_review', 'kyc_profile.approved', 'kyc_profile.rejected', 'kyc_profile.deleted', 'kyc_profile.document_uploaded', 'kyc_profile.document_deleted', 'kyc_profile.numbers_attached', 'kyc_profile.numbers_detached', 'kyc_profile.expiring', 'kyc_profile.expired', 'number.released', 'number.restored', 'number.suspended', 'number.resumed', 'number.updated', 'reservation.created', 'reservation.expired', 'reservation.ordered', 'reservation.cancelled', 'webhook.test'))
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
ALTER TABLE `orders` ADD `reservation_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `orders_reservation_unique` ON `orders` (`reservation_id`) WHERE "orders"."reservation_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `stock_numbers` ADD `reservation_id` text;--> statement-breakpoint
ALTER TABLE `stock_numbers` ADD `held_until` integer;--> statement-breakpoint
CREATE INDEX `stock_numbers_pair_phone_available_idx` ON `stock_numbers` (`country_code`,`number_type`,`phone_number`) WHERE "stock_numbers"."status" = 'available';--> statement-breakpoint
CREATE INDEX `stock_numbers_pair_held_until_idx` ON `stock_numbers` (`country_code`,`number_type`,`held_until`) WHERE "stock_numbers"."status" = 'reserved';--> statement-breakpoint
CREATE INDEX `stock_numbers_reservation_idx` ON `stock_numbers` (`reservation_id`) WHERE "stock_numbers"."reservation_id" IS NOT NULL;