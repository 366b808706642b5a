-- Custom migration (drizzle-kit cannot express triggers or virtual tables): the lists' derived data of 0002, kept
-- right by triggers whatever writes the rows (the Worker, a migration, an operator's SQL, a backfill), and
-- backfilled here from the rows that exist when it runs.

-- A number per account: the high 32 bits of its orders' rowids in order_trigrams.
INSERT INTO customer_numbers (customer_id) SELECT id FROM customers ORDER BY created_at, id;
--> statement-breakpoint
CREATE TRIGGER customer_numbers_insert AFTER INSERT ON customers BEGIN
  INSERT INTO customer_numbers (customer_id) VALUES (NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER customer_numbers_delete BEFORE DELETE ON customers BEGIN
  DELETE FROM customer_numbers WHERE customer_id = OLD.id;
END;
--> statement-breakpoint

-- Orders per account and (number_type, country_code, status) segment; a segment at zero has no row.
INSERT INTO order_counts (customer_id, number_type, country_code, status, count)
  SELECT customer_id, number_type, country_code, status, count(*) FROM orders
  GROUP BY customer_id, number_type, country_code, status;
--> statement-breakpoint
CREATE TRIGGER order_counts_insert AFTER INSERT ON orders BEGIN
  INSERT INTO order_counts (customer_id, number_type, country_code, status, count)
    VALUES (NEW.customer_id, NEW.number_type, NEW.country_code, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER order_counts_delete AFTER DELETE ON orders BEGIN
  UPDATE order_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND number_type = OLD.number_type AND country_code = OLD.country_code AND status = OLD.status;
  DELETE FROM order_counts
    WHERE customer_id = OLD.customer_id AND number_type = OLD.number_type AND country_code = OLD.country_code AND status = OLD.status
      AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER order_counts_update AFTER UPDATE OF customer_id, number_type, country_code, status ON orders
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.number_type IS NOT NEW.number_type
    OR OLD.country_code IS NOT NEW.country_code OR OLD.status IS NOT NEW.status
BEGIN
  UPDATE order_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND number_type = OLD.number_type AND country_code = OLD.country_code AND status = OLD.status;
  DELETE FROM order_counts
    WHERE customer_id = OLD.customer_id AND number_type = OLD.number_type AND country_code = OLD.country_code AND status = OLD.status
      AND count = 0;
  INSERT INTO order_counts (customer_id, number_type, country_code, status, count)
    VALUES (NEW.customer_id, NEW.number_type, NEW.country_code, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint

-- The bounds of created_at − requested_at and created_at − fulfilled_at per account. Only ever widened (a bound too
-- wide is still true), so an order that changes or goes away never needs them recomputed. min() and max() of two
-- values are NULL if either is, hence the coalesce for the fulfilled bounds, which stay NULL until an order is.
INSERT INTO order_time_lags (customer_id, requested_min, requested_max, fulfilled_min, fulfilled_max)
  SELECT customer_id, min(created_at - requested_at), max(created_at - requested_at),
    min(created_at - fulfilled_at), max(created_at - fulfilled_at)
  FROM orders GROUP BY customer_id;
--> statement-breakpoint
CREATE TRIGGER order_time_lags_insert AFTER INSERT ON orders BEGIN
  INSERT INTO order_time_lags (customer_id, requested_min, requested_max, fulfilled_min, fulfilled_max)
    VALUES (NEW.customer_id, NEW.created_at - NEW.requested_at, NEW.created_at - NEW.requested_at,
      NEW.created_at - NEW.fulfilled_at, NEW.created_at - NEW.fulfilled_at)
    ON CONFLICT (customer_id) DO UPDATE SET
      requested_min = min(requested_min, excluded.requested_min),
      requested_max = max(requested_max, excluded.requested_max),
      fulfilled_min = coalesce(min(fulfilled_min, excluded.fulfilled_min), fulfilled_min, excluded.fulfilled_min),
      fulfilled_max = coalesce(max(fulfilled_max, excluded.fulfilled_max), fulfilled_max, excluded.fulfilled_max);
END;
--> statement-breakpoint
CREATE TRIGGER order_time_lags_update AFTER UPDATE OF customer_id, created_at, requested_at, fulfilled_at ON orders BEGIN
  INSERT INTO order_time_lags (customer_id, requested_min, requested_max, fulfilled_min, fulfilled_max)
    VALUES (NEW.customer_id, NEW.created_at - NEW.requested_at, NEW.created_at - NEW.requested_at,
      NEW.created_at - NEW.fulfilled_at, NEW.created_at - NEW.fulfilled_at)
    ON CONFLICT (customer_id) DO UPDATE SET
      requested_min = min(requested_min, excluded.requested_min),
      requested_max = max(requested_max, excluded.requested_max),
      fulfilled_min = coalesce(min(fulfilled_min, excluded.fulfilled_min), fulfilled_min, excluded.fulfilled_min),
      fulfilled_max = coalesce(max(fulfilled_max, excluded.fulfilled_max), fulfilled_max, excluded.fulfilled_max);
END;
--> statement-breakpoint

-- Numbers per account, country, type and status.
INSERT INTO number_counts (customer_id, country_code, number_type, status, count)
  SELECT customer_id, country_code, number_type, status, count(*) FROM numbers
  GROUP BY customer_id, country_code, number_type, status;
--> statement-breakpoint
CREATE TRIGGER number_counts_insert AFTER INSERT ON numbers BEGIN
  INSERT INTO number_counts (customer_id, country_code, number_type, status, count)
    VALUES (NEW.customer_id, NEW.country_code, NEW.number_type, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER number_counts_delete AFTER DELETE ON numbers BEGIN
  UPDATE number_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND country_code = OLD.country_code AND number_type = OLD.number_type AND status = OLD.status;
  DELETE FROM number_counts
    WHERE customer_id = OLD.customer_id AND country_code = OLD.country_code AND number_type = OLD.number_type AND status = OLD.status
      AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER number_counts_update AFTER UPDATE OF customer_id, country_code, number_type, status ON numbers
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.country_code IS NOT NEW.country_code
    OR OLD.number_type IS NOT NEW.number_type OR OLD.status IS NOT NEW.status
BEGIN
  UPDATE number_counts SET count = count - 1
    WHERE customer_id = OLD.customer_id AND country_code = OLD.country_code AND number_type = OLD.number_type AND status = OLD.status;
  DELETE FROM number_counts
    WHERE customer_id = OLD.customer_id AND country_code = OLD.country_code AND number_type = OLD.number_type AND status = OLD.status
      AND count = 0;
  INSERT INTO number_counts (customer_id, country_code, number_type, status, count)
    VALUES (NEW.customer_id, NEW.country_code, NEW.number_type, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint

-- Users per account, role and status.
INSERT INTO user_counts (customer_id, role, status, count)
  SELECT customer_id, role, status, count(*) FROM users GROUP BY customer_id, role, status;
--> statement-breakpoint
CREATE TRIGGER user_counts_insert AFTER INSERT ON users BEGIN
  INSERT INTO user_counts (customer_id, role, status, count) VALUES (NEW.customer_id, NEW.role, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER user_counts_delete AFTER DELETE ON users BEGIN
  UPDATE user_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND role = OLD.role AND status = OLD.status;
  DELETE FROM user_counts WHERE customer_id = OLD.customer_id AND role = OLD.role AND status = OLD.status AND count = 0;
END;
--> statement-breakpoint
CREATE TRIGGER user_counts_update AFTER UPDATE OF customer_id, role, status ON users
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.role IS NOT NEW.role OR OLD.status IS NOT NEW.status
BEGIN
  UPDATE user_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND role = OLD.role AND status = OLD.status;
  DELETE FROM user_counts WHERE customer_id = OLD.customer_id AND role = OLD.role AND status = OLD.status AND count = 0;
  INSERT INTO user_counts (customer_id, role, status, count) VALUES (NEW.customer_id, NEW.role, NEW.status, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint

-- The search index of orders: trigrams of the order number ("#000042") and the notes, case-folded. It only
-- narrows a search down (detail = none keeps rowids, not positions); the list then applies the exact test. Rowids
-- are (account number << 32) | order_seq, so one account's entries form one rowid range.
CREATE VIRTUAL TABLE order_trigrams USING fts5(
  order_number, notes, tokenize = 'trigram', content = '', contentless_delete = 1, detail = none
);
--> statement-breakpoint
INSERT INTO order_trigrams (rowid, order_number, notes)
  SELECT (customer_numbers.number << 32) | orders.order_seq, '#' || printf('%06d', orders.order_seq), orders.notes
  FROM orders JOIN customer_numbers ON customer_numbers.customer_id = orders.customer_id;
--> statement-breakpoint
CREATE TRIGGER order_trigrams_insert AFTER INSERT ON orders BEGIN
  INSERT INTO order_trigrams (rowid, order_number, notes) VALUES (
    ((SELECT number FROM customer_numbers WHERE customer_id = NEW.customer_id) << 32) | NEW.order_seq,
    '#' || printf('%06d', NEW.order_seq),
    NEW.notes
  );
END;
--> statement-breakpoint
CREATE TRIGGER order_trigrams_update AFTER UPDATE OF customer_id, order_seq, notes ON orders
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.order_seq IS NOT NEW.order_seq OR OLD.notes IS NOT NEW.notes
BEGIN
  DELETE FROM order_trigrams
    WHERE rowid = ((SELECT number FROM customer_numbers WHERE customer_id = OLD.customer_id) << 32) | OLD.order_seq;
  INSERT INTO order_trigrams (rowid, order_number, notes) VALUES (
    ((SELECT number FROM customer_numbers WHERE customer_id = NEW.customer_id) << 32) | NEW.order_seq,
    '#' || printf('%06d', NEW.order_seq),
    NEW.notes
  );
END;
--> statement-breakpoint
CREATE TRIGGER order_trigrams_delete AFTER DELETE ON orders BEGIN
  DELETE FROM order_trigrams
    WHERE rowid = ((SELECT number FROM customer_numbers WHERE customer_id = OLD.customer_id) << 32) | OLD.order_seq;
END;
