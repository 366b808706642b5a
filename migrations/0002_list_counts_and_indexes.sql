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
CREATE TABLE `user_counts` (
	`customer_id` text NOT NULL,
	`role` text NOT NULL,
	`status` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `role`, `status`)
);
--> statement-breakpoint
DROP INDEX `orders_customer_quantity_idx`;--> statement-breakpoint
DROP INDEX `orders_customer_requested_idx`;--> statement-breakpoint
DROP INDEX `orders_customer_fulfilled_idx`;--> statement-breakpoint
CREATE INDEX `orders_customer_fulfilled_nulls_last_idx` ON `orders` (`customer_id`,("fulfilled_at" IS NULL),`fulfilled_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_segment_created_idx` ON `orders` (`customer_id`,`number_type`,`country_code`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_quantity_idx` ON `orders` (`customer_id`,`quantity`,`id`,`status`,`number_type`,`country_code`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_customer_requested_idx` ON `orders` (`customer_id`,`requested_at`,`id`,`status`,`number_type`,`country_code`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_customer_fulfilled_idx` ON `orders` (`customer_id`,`fulfilled_at`,`id`,`status`,`number_type`,`country_code`,`created_at`);