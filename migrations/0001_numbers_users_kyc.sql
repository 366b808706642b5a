CREATE TABLE `kyc_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`kyc_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`document_type` text NOT NULL,
	`filename` text NOT NULL,
	`file_size` integer NOT NULL,
	`mime_type` text NOT NULL,
	`description` text,
	`expiration_date` text,
	`status` text DEFAULT 'uploaded' NOT NULL,
	`object_key` text NOT NULL,
	`uploaded_at` integer NOT NULL,
	FOREIGN KEY (`kyc_id`) REFERENCES `kyc_verifications`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kyc_documents_object_key_unique` ON `kyc_documents` (`object_key`);--> statement-breakpoint
CREATE INDEX `kyc_documents_kyc_idx` ON `kyc_documents` (`kyc_id`,`uploaded_at`,`id`);--> statement-breakpoint
CREATE INDEX `kyc_documents_customer_idx` ON `kyc_documents` (`customer_id`,`id`);--> statement-breakpoint
CREATE TABLE `kyc_verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`number_id` text NOT NULL,
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
	`expires_at` integer,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`number_id`) REFERENCES `numbers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "kyc_status_valid" CHECK("kyc_verifications"."status" IN ('pending', 'under_review', 'approved', 'rejected')),
	CONSTRAINT "kyc_type_valid" CHECK("kyc_verifications"."type" IN ('individual', 'business')),
	CONSTRAINT "kyc_business_has_company" CHECK("kyc_verifications"."type" = 'individual' OR "kyc_verifications"."company_name" IS NOT NULL)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kyc_verifications_number_unique` ON `kyc_verifications` (`number_id`);--> statement-breakpoint
CREATE INDEX `kyc_verifications_customer_idx` ON `kyc_verifications` (`customer_id`,`id`);--> statement-breakpoint
CREATE TABLE `numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`order_id` text NOT NULL,
	`phone_number` text NOT NULL,
	`country_code` text NOT NULL,
	`number_type` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "numbers_status_valid" CHECK("numbers"."status" IN ('active', 'suspended', 'released'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `numbers_phone_number_unique` ON `numbers` (`phone_number`);--> statement-breakpoint
CREATE INDEX `numbers_customer_created_idx` ON `numbers` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_customer_phone_idx` ON `numbers` (`customer_id`,`phone_number`);--> statement-breakpoint
CREATE INDEX `numbers_customer_country_idx` ON `numbers` (`customer_id`,`country_code`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_customer_number_type_idx` ON `numbers` (`customer_id`,`number_type`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_customer_status_idx` ON `numbers` (`customer_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_order_idx` ON `numbers` (`order_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`last_login_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "users_role_valid" CHECK("users"."role" IN ('owner', 'admin', 'member')),
	CONSTRAINT "users_status_valid" CHECK("users"."status" IN ('active', 'inactive', 'locked'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_customer_email_unique` ON `users` (`customer_id`,`email`);--> statement-breakpoint
CREATE INDEX `users_customer_created_idx` ON `users` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `users_customer_name_idx` ON `users` (`customer_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `users_customer_role_idx` ON `users` (`customer_id`,`role`,`id`);--> statement-breakpoint
CREATE INDEX `users_customer_status_idx` ON `users` (`customer_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `users_customer_last_login_idx` ON `users` (`customer_id`,`last_login_at`,`id`);