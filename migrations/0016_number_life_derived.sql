-- Custom migration (drizzle-kit cannot express triggers): the derived data of 0015, kept right by triggers whatever
-- writes the rows, and backfilled here from the rows that exist when it runs.

-- Stock: numbers now move between statuses (available, quarantined, reserved); stock_counts counts each. A number's
-- identity (phone number, pair, import, source) still never changes.
DROP TRIGGER stock_numbers_unchanged;
--> statement-breakpoint
DROP TRIGGER stock_counts_insert;
--> statement-breakpoint
DROP TRIGGER stock_counts_delete;
--> statement-breakpoint
UPDATE stock_numbers SET available_at = imported_at;
--> statement-breakpoint
UPDATE stock_counts SET available = count;
--> statement-breakpoint
CREATE TRIGGER stock_counts_insert AFTER INSERT ON stock_numbers BEGIN
  INSERT INTO stock_counts (country_code, number_type, count, available, quarantined, reserved)
    VALUES (NEW.country_code, NEW.number_type, 1, NEW.status = 'available', NEW.status = 'quarantined', NEW.status = 'reserved')
    ON CONFLICT DO UPDATE SET count = count + 1, available = available + excluded.available,
      quarantined = quarantined + excluded.quarantined, reserved = reserved + excluded.reserved;
END;
--> statement-breakpoint
CREATE TRIGGER stock_counts_delete AFTER DELETE ON stock_numbers BEGIN
  UPDATE stock_counts SET count = count - 1, available = available - (OLD.status = 'available'),
      quarantined = quarantined - (OLD.status = 'quarantined'), reserved = reserved - (OLD.status = 'reserved')
    WHERE country_code = OLD.country_code AND number_type = OLD.number_type;
  DELETE FROM stock_counts WHERE country_code = OLD.country_code AND number_type = OLD.number_type AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER stock_counts_status AFTER UPDATE OF status ON stock_numbers WHEN OLD.status IS NOT NEW.status BEGIN
  UPDATE stock_counts SET
      available = available - (OLD.status = 'available') + (NEW.status = 'available'),
      quarantined = quarantined - (OLD.status = 'quarantined') + (NEW.status = 'quarantined'),
      reserved = reserved - (OLD.status = 'reserved') + (NEW.status = 'reserved')
    WHERE country_code = NEW.country_code AND number_type = NEW.number_type;
END;
--> statement-breakpoint
CREATE TRIGGER stock_numbers_identity_unchanged
  BEFORE UPDATE OF phone_number, country_code, number_type, import_id, imported_at, source ON stock_numbers
BEGIN
  SELECT RAISE(ABORT, 'a stock number''s phone number, pair, import and source are never changed');
END;
--> statement-breakpoint

-- Numbers released or suspended before tenures had these fields: released (by nobody known) or suspended (for an
-- unrecorded reason) when last updated. A released number leaves its profile, which a restore may give back.
UPDATE numbers SET released_at = updated_at, restorable_until = updated_at + 864000000, released_profile_id = kyc_profile_id
  WHERE status = 'released';
--> statement-breakpoint
DELETE FROM kyc_profile_numbers WHERE number_id IN (SELECT id FROM numbers WHERE status = 'released');
--> statement-breakpoint
UPDATE numbers SET suspended_at = updated_at, suspension_reason = 'other' WHERE status = 'suspended';
--> statement-breakpoint

-- Each number's tags in lower case, for the list's tag filter (tags are ASCII: lower() is exact).
CREATE TRIGGER number_tags_insert AFTER INSERT ON numbers WHEN NEW.tags <> '[]' BEGIN
  INSERT INTO number_tags (number_id, customer_id, tag_key)
    SELECT DISTINCT NEW.id, NEW.customer_id, lower(value) FROM json_each(NEW.tags);
END;
--> statement-breakpoint
CREATE TRIGGER number_tags_update AFTER UPDATE OF tags, customer_id ON numbers
  WHEN OLD.tags IS NOT NEW.tags OR OLD.customer_id IS NOT NEW.customer_id
BEGIN
  DELETE FROM number_tags WHERE number_id = OLD.id;
  INSERT INTO number_tags (number_id, customer_id, tag_key)
    SELECT DISTINCT NEW.id, NEW.customer_id, lower(value) FROM json_each(NEW.tags);
END;
--> statement-breakpoint
CREATE TRIGGER number_tags_delete AFTER DELETE ON numbers WHEN OLD.tags <> '[]' BEGIN
  DELETE FROM number_tags WHERE number_id = OLD.id;
END;
--> statement-breakpoint

-- A released number's own verification leaves the review queue and its counts: number_released follows the status.
CREATE TRIGGER numbers_release_flag AFTER UPDATE OF status ON numbers
  WHEN (OLD.status = 'released') IS NOT (NEW.status = 'released')
BEGIN
  UPDATE kyc_verifications SET number_released = (NEW.status = 'released') WHERE number_id = NEW.id;
END;
--> statement-breakpoint
UPDATE kyc_verifications SET number_released = 1
  WHERE number_id IN (SELECT id FROM numbers WHERE status = 'released');
--> statement-breakpoint

-- Verifications per account and status, and of every account per status, counting only number_released = 0.
DROP TRIGGER kyc_counts_insert;
--> statement-breakpoint
DROP TRIGGER kyc_counts_delete;
--> statement-breakpoint
DROP TRIGGER kyc_counts_update;
--> statement-breakpoint
CREATE TRIGGER kyc_counts_insert AFTER INSERT ON kyc_verifications WHEN NEW.number_released = 0 BEGIN
  INSERT INTO kyc_counts (customer_id, status, count) VALUES (NEW.customer_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
  INSERT INTO kyc_totals (status, count) VALUES (NEW.status, 1) ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER kyc_counts_delete AFTER DELETE ON kyc_verifications WHEN OLD.number_released = 0 BEGIN
  UPDATE kyc_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND status = OLD.status;
  DELETE FROM kyc_counts WHERE customer_id = OLD.customer_id AND status = OLD.status AND count = 0;
  UPDATE kyc_totals SET count = count - 1 WHERE status = OLD.status;
  DELETE FROM kyc_totals WHERE status = OLD.status AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER kyc_counts_update AFTER UPDATE OF customer_id, status, number_released ON kyc_verifications
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.status IS NOT NEW.status OR OLD.number_released IS NOT NEW.number_released
BEGIN
  UPDATE kyc_counts SET count = count - 1
    WHERE OLD.number_released = 0 AND customer_id = OLD.customer_id AND status = OLD.status;
  DELETE FROM kyc_counts WHERE customer_id = OLD.customer_id AND status = OLD.status AND count = 0;
  UPDATE kyc_totals SET count = count - 1 WHERE OLD.number_released = 0 AND status = OLD.status;
  DELETE FROM kyc_totals WHERE status = OLD.status AND count = 0;
  INSERT INTO kyc_counts (customer_id, status, count) SELECT NEW.customer_id, NEW.status, 1 WHERE NEW.number_released = 0
    ON CONFLICT DO UPDATE SET count = count + 1;
  INSERT INTO kyc_totals (status, count) SELECT NEW.status, 1 WHERE NEW.number_released = 0
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
DELETE FROM kyc_counts;
--> statement-breakpoint
INSERT INTO kyc_counts (customer_id, status, count)
  SELECT customer_id, status, count(*) FROM kyc_verifications WHERE number_released = 0 GROUP BY customer_id, status;
--> statement-breakpoint
DELETE FROM kyc_totals;
--> statement-breakpoint
INSERT INTO kyc_totals (status, count)
  SELECT status, count(*) FROM kyc_verifications WHERE number_released = 0 GROUP BY status;
