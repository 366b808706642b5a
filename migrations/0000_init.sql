CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`last_four` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_customer_created_idx` ON `api_keys` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `catalog` (
	`country_code` text NOT NULL,
	`number_type` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`country_code`, `number_type`)
);
--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_slug_unique` ON `customers` (`slug`);--> statement-breakpoint
CREATE INDEX `customers_created_at_idx` ON `customers` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`order_seq` integer NOT NULL,
	`number_type` text NOT NULL,
	`country_code` text NOT NULL,
	`quantity` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`fulfilled_quantity` integer DEFAULT 0 NOT NULL,
	`notes` text,
	`requested_at` integer NOT NULL,
	`fulfilled_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "orders_quantity_range" CHECK("orders"."quantity" BETWEEN 1 AND 10000),
	CONSTRAINT "orders_fulfilled_quantity_range" CHECK("orders"."fulfilled_quantity" BETWEEN 0 AND "orders"."quantity"),
	CONSTRAINT "orders_status_valid" CHECK("orders"."status" IN ('pending', 'processing', 'fulfilled', 'cancelled'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_order_seq_unique` ON `orders` (`order_seq`);--> statement-breakpoint
CREATE INDEX `orders_customer_created_idx` ON `orders` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_order_seq_idx` ON `orders` (`customer_id`,`order_seq`);--> statement-breakpoint
CREATE INDEX `orders_customer_number_type_idx` ON `orders` (`customer_id`,`number_type`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_country_idx` ON `orders` (`customer_id`,`country_code`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_quantity_idx` ON `orders` (`customer_id`,`quantity`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_status_idx` ON `orders` (`customer_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_requested_idx` ON `orders` (`customer_id`,`requested_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_customer_fulfilled_idx` ON `orders` (`customer_id`,`fulfilled_at`,`id`);