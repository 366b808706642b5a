CREATE TABLE `batch_assertions` (
	`assertion` text NOT NULL,
	CONSTRAINT "batch_assertion_failed" CHECK("batch_assertions"."assertion" IS NULL)
);
--> statement-breakpoint
CREATE TABLE `customer_numbers` (
	`number` integer PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customer_numbers_customer_id_unique` ON `customer_numbers` (`customer_id`);--> statement-breakpoint
CREATE TABLE `number_counts` (
	`customer_id` text NOT NULL,
	`country_code` text NOT NULL,
	`number_type` text NOT NULL,
	`status` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `country_code`, `number_type`, `status`)
);
--> statement-breakpoint
CREATE TABLE `order_counts` (
	`customer_id` text NOT NULL,
	`number_type` text NOT NULL,
	`country_code` text NOT NULL,
	`status` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `number_type`, `country_code`, `status`)
);
--> statement-breakpoint
CREATE TABLE `order_time_lags` (
	`customer_id` text PRIMARY KEY NOT NULL,
	`requested_min` integer NOT NULL,
	`requested_max` integer NOT NULL,
	`fulfilled_min` integer,
	`fulfilled_max` integer
);
--> statement-breakpoint
CREATE TABLE `user_counts` (
	`customer_id` text NOT NULL,
	`role` text NOT NULL,
	`status` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `role`, `status`)
);
--> statement-breakpoint
DROP INDEX `orders_customer_created_idx`;--> statement-breakpoint
DROP INDEX `orders_customer_quantity_idx`;--> statement-breakpoint
CREATE INDEX `orders_customer_fulfilled_nulls_last_idx` ON `orders` (`customer_id`,("fulfilled_at" IS NULL),`fulfilled_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_segment_created_idx` ON `orders` (`customer_id`,`number_type`,`country_code`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_segment_requested_idx` ON `orders` (`customer_id`,`number_type`,`country_code`,`status`,`requested_at`);--> statement-breakpoint
CREATE INDEX `orders_customer_segment_fulfilled_idx` ON `orders` (`customer_id`,`number_type`,`country_code`,`status`,`fulfilled_at`);--> statement-breakpoint
CREATE INDEX `orders_customer_segment_quantity_idx` ON `orders` (`customer_id`,`number_type`,`country_code`,`status`,`quantity`);--> statement-breakpoint
CREATE INDEX `orders_customer_created_idx` ON `orders` (`customer_id`,`created_at`,`id`,`requested_at`,`fulfilled_at`,`status`,`number_type`,`country_code`);--> statement-breakpoint
CREATE INDEX `orders_customer_quantity_idx` ON `orders` (`customer_id`,`quantity`,`id`,`status`,`number_type`,`country_code`,`created_at`);