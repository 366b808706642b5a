CREATE TABLE `sign_in_choices` (
	`ticket_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`password_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`ticket_hash`, `user_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sign_in_choices_expires_idx` ON `sign_in_choices` (`expires_at`);--> statement-breakpoint
DROP INDEX `sessions_user_idx`;--> statement-breakpoint
CREATE INDEX `sessions_created_idx` ON `sessions` (`created_at`);--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `users_email_idx` ON `users` (`email`);