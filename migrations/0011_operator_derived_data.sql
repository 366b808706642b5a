-- Custom migration (drizzle-kit cannot express triggers): the operator's derived data of 0010, kept right by triggers
-- whatever writes the rows, and backfilled here from the rows that exist when it runs; and the audit log's guard.

-- Orders of every account per (status, country_code, number_type): the operator's queue counts.
INSERT INTO order_totals (status, country_code, number_type, count)
  SELECT status, country_code, number_type, count(*) FROM orders GROUP BY status, country_code, number_type;
--> statement-breakpoint
CREATE TRIGGER order_totals_insert AFTER INSERT ON orders BEGIN
  INSERT INTO order_totals (status, country_code, number_type, count)
    VALUES (NEW.status, NEW.country_code, NEW.number_type, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER order_totals_delete AFTER DELETE ON orders BEGIN
  UPDATE order_totals SET count = count - 1
    WHERE status = OLD.status AND country_code = OLD.country_code AND number_type = OLD.number_type;
  DELETE FROM order_totals
    WHERE status = OLD.status AND country_code = OLD.country_code AND number_type = OLD.number_type AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER order_totals_update AFTER UPDATE OF status, country_code, number_type ON orders
  WHEN OLD.status IS NOT NEW.status OR OLD.country_code IS NOT NEW.country_code OR OLD.number_type IS NOT NEW.number_type
BEGIN
  UPDATE order_totals SET count = count - 1
    WHERE status = OLD.status AND country_code = OLD.country_code AND number_type = OLD.number_type;
  DELETE FROM order_totals
    WHERE status = OLD.status AND country_code = OLD.country_code AND number_type = OLD.number_type AND count = 0;
  INSERT INTO order_totals (status, country_code, number_type, count)
    VALUES (NEW.status, NEW.country_code, NEW.number_type, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint

-- Verifications per account and status, and of every account per status: the review queue's counts.
INSERT INTO kyc_counts (customer_id, status, count)
  SELECT customer_id, status, count(*) FROM kyc_verifications GROUP BY customer_id, status;
--> statement-breakpoint
INSERT INTO kyc_totals (status, count) SELECT status, count(*) FROM kyc_verifications GROUP BY status;
--> statement-breakpoint
CREATE TRIGGER kyc_counts_insert AFTER INSERT ON kyc_verifications BEGIN
  INSERT INTO kyc_counts (customer_id, status, count) VALUES (NEW.customer_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
  INSERT INTO kyc_totals (status, count) VALUES (NEW.status, 1) ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER kyc_counts_delete AFTER DELETE ON kyc_verifications BEGIN
  UPDATE kyc_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND status = OLD.status;
  DELETE FROM kyc_counts WHERE customer_id = OLD.customer_id AND status = OLD.status AND count = 0;
  UPDATE kyc_totals SET count = count - 1 WHERE status = OLD.status;
  DELETE FROM kyc_totals WHERE status = OLD.status AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER kyc_counts_update AFTER UPDATE OF customer_id, status ON kyc_verifications
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.status IS NOT NEW.status
BEGIN
  UPDATE kyc_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND status = OLD.status;
  DELETE FROM kyc_counts WHERE customer_id = OLD.customer_id AND status = OLD.status AND count = 0;
  UPDATE kyc_totals SET count = count - 1 WHERE status = OLD.status;
  DELETE FROM kyc_totals WHERE status = OLD.status AND count = 0;
  INSERT INTO kyc_counts (customer_id, status, count) VALUES (NEW.customer_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
  INSERT INTO kyc_totals (status, count) VALUES (NEW.status, 1) ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint

-- Numbers in stock per (country_code, number_type). Stock rows are inserted and deleted, never changed.
CREATE TRIGGER stock_counts_insert AFTER INSERT ON stock_numbers BEGIN
  INSERT INTO stock_counts (country_code, number_type, count) VALUES (NEW.country_code, NEW.number_type, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER stock_counts_delete AFTER DELETE ON stock_numbers BEGIN
  UPDATE stock_counts SET count = count - 1 WHERE country_code = OLD.country_code AND number_type = OLD.number_type;
  DELETE FROM stock_counts WHERE country_code = OLD.country_code AND number_type = OLD.number_type AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER stock_numbers_unchanged BEFORE UPDATE ON stock_numbers BEGIN
  SELECT RAISE(ABORT, 'stock numbers are imported and removed, never changed');
END;
--> statement-breakpoint

-- The audit log is never changed and never deleted from, whoever asks.
CREATE TRIGGER audit_events_unchanged BEFORE UPDATE ON audit_events BEGIN
  SELECT RAISE(ABORT, 'audit events are never changed');
END;
--> statement-breakpoint
CREATE TRIGGER audit_events_kept BEFORE DELETE ON audit_events BEGIN
  SELECT RAISE(ABORT, 'audit events are never deleted');
END;
