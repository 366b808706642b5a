-- Custom migration (drizzle-kit cannot express triggers): order_day_counts and order_quantity_counts of 0020, kept
-- right by triggers whatever writes the orders, and backfilled here from the orders that exist when it runs. A time's
-- day is its UTC day, time / 86400000 (DAY_MS in src/db/schema/numbers.ts); an order not fulfilled has no fulfilled
-- day. Rows at zero are removed.
INSERT INTO order_day_counts (customer_id, field, day, status, count)
  SELECT customer_id, 'created', created_at / 86400000, status, count(*) FROM orders GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO order_day_counts (customer_id, field, day, status, count)
  SELECT customer_id, 'requested', requested_at / 86400000, status, count(*) FROM orders GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO order_day_counts (customer_id, field, day, status, count)
  SELECT customer_id, 'fulfilled', fulfilled_at / 86400000, status, count(*) FROM orders
  WHERE fulfilled_at IS NOT NULL GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
CREATE TRIGGER order_day_counts_insert AFTER INSERT ON orders BEGIN
  INSERT INTO order_day_counts (customer_id, field, day, status, count)
    SELECT NEW.customer_id, field, day, NEW.status, 1 FROM (
      SELECT 'created' AS field, NEW.created_at / 86400000 AS day
      UNION ALL SELECT 'requested', NEW.requested_at / 86400000
      UNION ALL SELECT 'fulfilled', NEW.fulfilled_at / 86400000 WHERE NEW.fulfilled_at IS NOT NULL
    ) WHERE true
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER order_day_counts_delete AFTER DELETE ON orders BEGIN
  UPDATE order_day_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND status = OLD.status AND (
      (field = 'created' AND day = OLD.created_at / 86400000)
      OR (field = 'requested' AND day = OLD.requested_at / 86400000)
      OR (field = 'fulfilled' AND day = OLD.fulfilled_at / 86400000)
    );
  DELETE FROM order_day_counts
    WHERE customer_id = OLD.customer_id AND status = OLD.status AND count = 0 AND (
      (field = 'created' AND day = OLD.created_at / 86400000)
      OR (field = 'requested' AND day = OLD.requested_at / 86400000)
      OR (field = 'fulfilled' AND day = OLD.fulfilled_at / 86400000)
    );
END;
--> statement-breakpoint
CREATE TRIGGER order_day_counts_update AFTER UPDATE OF customer_id, status, created_at, requested_at, fulfilled_at ON orders
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.status IS NOT NEW.status
    OR OLD.created_at / 86400000 IS NOT NEW.created_at / 86400000
    OR OLD.requested_at / 86400000 IS NOT NEW.requested_at / 86400000
    OR OLD.fulfilled_at / 86400000 IS NOT NEW.fulfilled_at / 86400000
BEGIN
  UPDATE order_day_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND status = OLD.status AND (
      (field = 'created' AND day = OLD.created_at / 86400000)
      OR (field = 'requested' AND day = OLD.requested_at / 86400000)
      OR (field = 'fulfilled' AND day = OLD.fulfilled_at / 86400000)
    );
  DELETE FROM order_day_counts
    WHERE customer_id = OLD.customer_id AND status = OLD.status AND count = 0 AND (
      (field = 'created' AND day = OLD.created_at / 86400000)
      OR (field = 'requested' AND day = OLD.requested_at / 86400000)
      OR (field = 'fulfilled' AND day = OLD.fulfilled_at / 86400000)
    );
  INSERT INTO order_day_counts (customer_id, field, day, status, count)
    SELECT NEW.customer_id, field, day, NEW.status, 1 FROM (
      SELECT 'created' AS field, NEW.created_at / 86400000 AS day
      UNION ALL SELECT 'requested', NEW.requested_at / 86400000
      UNION ALL SELECT 'fulfilled', NEW.fulfilled_at / 86400000 WHERE NEW.fulfilled_at IS NOT NULL
    ) WHERE true
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
INSERT INTO order_quantity_counts (customer_id, quantity, status, count)
  SELECT customer_id, quantity, status, count(*) FROM orders GROUP BY 1, 2, 3;
--> statement-breakpoint
CREATE TRIGGER order_quantity_counts_insert AFTER INSERT ON orders BEGIN
  INSERT INTO order_quantity_counts (customer_id, quantity, status, count)
    VALUES (NEW.customer_id, NEW.quantity, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER order_quantity_counts_delete AFTER DELETE ON orders BEGIN
  UPDATE order_quantity_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND quantity = OLD.quantity AND status = OLD.status;
  DELETE FROM order_quantity_counts
    WHERE customer_id = OLD.customer_id AND quantity = OLD.quantity AND status = OLD.status AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER order_quantity_counts_update AFTER UPDATE OF customer_id, quantity, status ON orders
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.quantity IS NOT NEW.quantity OR OLD.status IS NOT NEW.status
BEGIN
  UPDATE order_quantity_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND quantity = OLD.quantity AND status = OLD.status;
  DELETE FROM order_quantity_counts
    WHERE customer_id = OLD.customer_id AND quantity = OLD.quantity AND status = OLD.status AND count = 0;
  INSERT INTO order_quantity_counts (customer_id, quantity, status, count)
    VALUES (NEW.customer_id, NEW.quantity, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
