-- Each number's profile and the expiry of its verification (its own, or its profile's) beside it, derived from
-- kyc_profile_numbers (which holds the attachment) and kyc_verifications by the triggers below, so the numbers list
-- filters by kyc_profile_id and kyc_expires_before along an index of the number's own row, and shows its profile.
ALTER TABLE `numbers` ADD `kyc_profile_id` text REFERENCES kyc_verifications(id);--> statement-breakpoint
ALTER TABLE `numbers` ADD `kyc_expires_at` integer;--> statement-breakpoint
UPDATE `numbers` SET `kyc_profile_id` = (SELECT `profile_id` FROM `kyc_profile_numbers` WHERE `number_id` = `numbers`.`id`)
  WHERE `id` IN (SELECT `number_id` FROM `kyc_profile_numbers`);--> statement-breakpoint
UPDATE `numbers` SET `kyc_expires_at` = coalesce(
    (SELECT `expires_at` FROM `kyc_verifications` WHERE `number_id` = `numbers`.`id`),
    (SELECT `expires_at` FROM `kyc_verifications` WHERE `id` = `numbers`.`kyc_profile_id`));--> statement-breakpoint
CREATE INDEX `numbers_customer_profile_created_idx` ON `numbers` (`customer_id`,`kyc_profile_id`,`created_at`,`id`) WHERE "numbers"."kyc_profile_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `numbers_customer_kyc_expires_idx` ON `numbers` (`customer_id`,`kyc_expires_at`) WHERE "numbers"."kyc_expires_at" IS NOT NULL;--> statement-breakpoint
CREATE TRIGGER numbers_profile_attached AFTER INSERT ON kyc_profile_numbers BEGIN
  UPDATE numbers SET kyc_profile_id = NEW.profile_id,
    kyc_expires_at = (SELECT expires_at FROM kyc_verifications WHERE id = NEW.profile_id)
  WHERE id = NEW.number_id;
END;
--> statement-breakpoint
CREATE TRIGGER numbers_profile_detached AFTER DELETE ON kyc_profile_numbers BEGIN
  UPDATE numbers SET kyc_profile_id = NULL, kyc_expires_at = NULL WHERE id = OLD.number_id;
END;
--> statement-breakpoint
CREATE TRIGGER numbers_kyc_inserted AFTER INSERT ON kyc_verifications WHEN NEW.expires_at IS NOT NULL BEGIN
  UPDATE numbers SET kyc_expires_at = NEW.expires_at WHERE id = NEW.number_id;
END;
--> statement-breakpoint
CREATE TRIGGER numbers_kyc_expiry AFTER UPDATE OF expires_at ON kyc_verifications
  WHEN OLD.expires_at IS NOT NEW.expires_at
BEGIN
  UPDATE numbers SET kyc_expires_at = NEW.expires_at WHERE id = NEW.number_id;
  UPDATE numbers SET kyc_expires_at = NEW.expires_at
    WHERE NEW.number_id IS NULL AND customer_id = NEW.customer_id AND kyc_profile_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER numbers_kyc_deleted AFTER DELETE ON kyc_verifications BEGIN
  UPDATE numbers SET kyc_expires_at = NULL WHERE id = OLD.number_id;
END;
