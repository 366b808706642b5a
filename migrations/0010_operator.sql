CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`actor_type` text NOT NULL,
	`actor_email` text,
	`actor_id` text,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`customer_id` text,
	`changes` text NOT NULL,
	`request_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "audit_events_actor_type_valid" CHECK("audit_events"."actor_type" IN ('staff', 'token', 'user', 'api_key'))
);
--> statement-breakpoint
CREATE INDEX `audit_events_created_idx` ON `audit_events` (`created_at`);--> statement-breakpoint
CREATE INDEX `audit_events_customer_created_idx` ON `audit_events` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_events_action_created_idx` ON `audit_events` (`action`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_events_actor_created_idx` ON `audit_events` (`actor_type`,`actor_email`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_events_target_created_idx` ON `audit_events` (`target_type`,`target_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `kyc_counts` (
	`customer_id` text NOT NULL,
	`status` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `status`)
);
--> statement-breakpoint
CREATE TABLE `kyc_totals` (
	`status` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `order_totals` (
	`status` text NOT NULL,
	`country_code` text NOT NULL,
	`number_type` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`status`, `country_code`, `number_type`)
);
--> statement-breakpoint
CREATE TABLE `staff` (
	`email` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "staff_email_lower_case" CHECK("staff"."email" = lower("staff"."email")),
	CONSTRAINT "staff_role_valid" CHECK("staff"."role" IN ('viewer', 'fulfilment', 'compliance', 'admin')),
	CONSTRAINT "staff_status_valid" CHECK("staff"."status" IN ('enabled', 'disabled'))
);
--> statement-breakpoint
CREATE TABLE `stock_counts` (
	`country_code` text NOT NULL,
	`number_type` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`country_code`, `number_type`)
);
--> statement-breakpoint
CREATE TABLE `stock_numbers` (
	`phone_number` text PRIMARY KEY NOT NULL,
	`country_code` text NOT NULL,
	`number_type` text NOT NULL,
	`import_id` text NOT NULL,
	`imported_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `stock_numbers_pair_imported_idx` ON `stock_numbers` (`country_code`,`number_type`,`imported_at`,`phone_number`);--> statement-breakpoint
CREATE INDEX `stock_numbers_imported_idx` ON `stock_numbers` (`imported_at`,`phone_number`);--> statement-breakpoint
CREATE INDEX `stock_numbers_import_idx` ON `stock_numbers` (`import_id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_status_submitted_idx` ON `kyc_verifications` (`status`,`submitted_at`,`id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_customer_status_submitted_idx` ON `kyc_verifications` (`customer_id`,`status`,`submitted_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_status_requested_idx` ON `orders` (`status`,`requested_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_status_pair_requested_idx` ON `orders` (`status`,`country_code`,`number_type`,`requested_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_status_requested_idx` ON `orders` (`customer_id`,`status`,`requested_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_status_quantity_idx` ON `orders` (`status`,`quantity`,`id`);