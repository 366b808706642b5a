-- Custom migration (drizzle-kit cannot express triggers): number_order_counts of 0023, kept right by triggers whatever
-- writes the numbers, as number_counts (migrations/0003), and backfilled here from the numbers that exist when it runs.
INSERT INTO number_order_counts (customer_id, order_id, status, count)
  SELECT customer_id, order_id, status, count(*) FROM numbers GROUP BY customer_id, order_id, status;
--> statement-breakpoint
CREATE TRIGGER number_order_counts_insert AFTER INSERT ON numbers BEGIN
  INSERT INTO number_order_counts (customer_id, order_id, status, count)
    VALUES (NEW.customer_id, NEW.order_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER number_order_counts_delete AFTER DELETE ON numbers BEGIN
  UPDATE number_order_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND order_id = OLD.order_id AND status = OLD.status;
  DELETE FROM number_order_counts
    WHERE customer_id = OLD.customer_id AND order_id = OLD.order_id AND status = OLD.status AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER number_order_counts_update AFTER UPDATE OF customer_id, order_id, status ON numbers
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.order_id IS NOT NEW.order_id OR OLD.status IS NOT NEW.status
BEGIN
  UPDATE number_order_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND order_id = OLD.order_id AND status = OLD.status;
  DELETE FROM number_order_counts
    WHERE customer_id = OLD.customer_id AND order_id = OLD.order_id AND status = OLD.status AND count = 0;
  INSERT INTO number_order_counts (customer_id, order_id, status, count)
    VALUES (NEW.customer_id, NEW.order_id, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
