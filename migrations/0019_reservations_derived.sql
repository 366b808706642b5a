-- Custom migration (drizzle-kit cannot express triggers or a virtual table): the search's index of stock numbers and
-- the holds of reservations on stock numbers, kept right by triggers whatever writes the rows.

-- The search's index of stock numbers by their digits (E.164 without its "+"): FTS5 with the trigram tokenizer, as the
-- orders' search (migrations/0003), contentless. A number's rowid is its pair's number (stock_pairs) << 50 | its digits
-- (at most 15 digits, below 2^50), so one pair's numbers form one rowid range and a search reads only its own pair's
-- postings. At most 8,191 pairs (63 bits).
CREATE TABLE stock_pairs (
  number INTEGER PRIMARY KEY CHECK (number < 8192),
  country_code text NOT NULL,
  number_type text NOT NULL,
  UNIQUE (country_code, number_type)
);
--> statement-breakpoint
CREATE VIRTUAL TABLE stock_trigrams USING fts5(
  digits, tokenize = 'trigram', content = '', contentless_delete = 1, detail = none
);
--> statement-breakpoint
CREATE TRIGGER stock_trigrams_insert AFTER INSERT ON stock_numbers BEGIN
  INSERT OR IGNORE INTO stock_pairs (country_code, number_type) VALUES (NEW.country_code, NEW.number_type);
  INSERT INTO stock_trigrams (rowid, digits) VALUES (
    ((SELECT number FROM stock_pairs WHERE country_code = NEW.country_code AND number_type = NEW.number_type) << 50)
      | CAST(substr(NEW.phone_number, 2) AS INTEGER),
    substr(NEW.phone_number, 2)
  );
END;
--> statement-breakpoint
CREATE TRIGGER stock_trigrams_delete AFTER DELETE ON stock_numbers BEGIN
  DELETE FROM stock_trigrams WHERE rowid =
    ((SELECT number FROM stock_pairs WHERE country_code = OLD.country_code AND number_type = OLD.number_type) << 50)
      | CAST(substr(OLD.phone_number, 2) AS INTEGER);
END;
--> statement-breakpoint
INSERT OR IGNORE INTO stock_pairs (country_code, number_type)
  SELECT DISTINCT country_code, number_type FROM stock_numbers;
--> statement-breakpoint
INSERT INTO stock_trigrams (rowid, digits)
  SELECT (stock_pairs.number << 50) | CAST(substr(phone_number, 2) AS INTEGER), substr(phone_number, 2)
    FROM stock_numbers JOIN stock_pairs USING (country_code, number_type);
--> statement-breakpoint

-- A reservation's numbers follow it: a new expires_at moves their hold, ordering holds them for the order (no end),
-- expiry or cancel makes them available. Only rows still naming the reservation move: a number whose hold lapsed may
-- since be held by another.
CREATE TRIGGER reservations_hold_moved AFTER UPDATE OF expires_at ON reservations
  WHEN NEW.status = 'active' AND OLD.expires_at IS NOT NEW.expires_at
BEGIN
  UPDATE stock_numbers SET held_until = NEW.expires_at WHERE reservation_id = NEW.id AND status = 'reserved';
END;
--> statement-breakpoint
CREATE TRIGGER reservations_hold_ordered AFTER UPDATE OF status ON reservations
  WHEN OLD.status = 'active' AND NEW.status = 'ordered'
BEGIN
  UPDATE stock_numbers SET held_until = NULL WHERE reservation_id = NEW.id AND status = 'reserved';
END;
--> statement-breakpoint
CREATE TRIGGER reservations_hold_ended AFTER UPDATE OF status ON reservations
  WHEN OLD.status = 'active' AND NEW.status IN ('expired', 'cancelled')
BEGIN
  UPDATE stock_numbers SET status = 'available', reservation_id = NULL, held_until = NULL
    WHERE reservation_id = NEW.id AND status = 'reserved';
END;
--> statement-breakpoint
-- An order placed from a reservation ends its hold when it is fulfilled or cancelled: the numbers it did not take are
-- available again (the reservation stays ordered).
CREATE TRIGGER orders_reservation_hold_ended AFTER UPDATE OF status ON orders
  WHEN NEW.reservation_id IS NOT NULL AND NEW.status IN ('fulfilled', 'cancelled') AND OLD.status IS NOT NEW.status
BEGIN
  UPDATE stock_numbers SET status = 'available', reservation_id = NULL, held_until = NULL
    WHERE reservation_id = NEW.reservation_id AND status = 'reserved';
END;
--> statement-breakpoint
-- A reservation's pair, customer, quantity and creation never change.
CREATE TRIGGER reservations_identity_unchanged
  BEFORE UPDATE OF customer_id, country_code, number_type, quantity, created_at, hold_for_profile ON reservations
BEGIN
  SELECT RAISE(ABORT, 'a reservation''s account, pair, quantity, creation and profile are never changed');
END;
