DROP INDEX `numbers_customer_profile_created_idx`;--> statement-breakpoint
CREATE INDEX `numbers_customer_order_created_idx` ON `numbers` (`customer_id`,`order_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_customer_pair_created_idx` ON `numbers` (`customer_id`,`country_code`,`number_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_customer_status_created_idx` ON `numbers` (`customer_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `numbers_customer_profile_created_idx` ON `numbers` (`customer_id`,`kyc_profile_id`,`created_at`,`id`,`status`) WHERE "numbers"."kyc_profile_id" IS NOT NULL;