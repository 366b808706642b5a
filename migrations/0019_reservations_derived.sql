-- Custom migration (drizzle-kit cannot express triggers or a WITHOUT ROWID table): the search's suffix index and the
-- holds of reservations on stock numbers, kept right by triggers whatever writes the rows.

-- Every digit suffix of every stock number (E.164 without its "+": at most 15 digits), per pair. Triggers cannot use
-- a recursive WITH, so the suffixes' start positions come from a fixed JSON list.
CREATE TABLE stock_number_suffixes (
  country_code text NOT NULL,
  number_type text NOT NULL,
  suffix text NOT NULL,
  phone_number text NOT NULL,
  PRIMARY KEY (country_code, number_type, suffix, phone_number)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER stock_number_suffixes_insert AFTER INSERT ON stock_numbers BEGIN
  INSERT INTO stock_number_suffixes (country_code, number_type, suffix, phone_number)
    SELECT NEW.country_code, NEW.number_type, substr(NEW.phone_number, value), NEW.phone_number
      FROM json_each('[2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]') WHERE value <= length(NEW.phone_number);
END;
--> statement-breakpoint
CREATE TRIGGER stock_number_suffixes_delete AFTER DELETE ON stock_numbers BEGIN
  DELETE FROM stock_number_suffixes
    WHERE country_code = OLD.country_code AND number_type = OLD.number_type AND phone_number = OLD.phone_number
      AND suffix IN (SELECT substr(OLD.phone_number, value) FROM json_each('[2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]')
        WHERE value <= length(OLD.phone_number));
END;
--> statement-breakpoint
INSERT INTO stock_number_suffixes (country_code, number_type, suffix, phone_number)
  SELECT country_code, number_type, substr(phone_number, value), phone_number
    FROM stock_numbers, json_each('[2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]') WHERE value <= length(phone_number);
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
