-- Custom migration (drizzle-kit cannot express triggers): events per account and type, for the events list's total,
-- kept right by triggers whatever writes or purges the events. A type at zero has no row.
CREATE TRIGGER event_counts_insert AFTER INSERT ON events BEGIN
  INSERT INTO event_counts (customer_id, type, count) VALUES (NEW.customer_id, NEW.type, 1)
    ON CONFLICT DO UPDATE SET count = count + 1;
END;
--> statement-breakpoint
CREATE TRIGGER event_counts_delete AFTER DELETE ON events BEGIN
  UPDATE event_counts SET count = count - 1 WHERE customer_id = OLD.customer_id AND type = OLD.type;
  DELETE FROM event_counts WHERE customer_id = OLD.customer_id AND type = OLD.type AND count = 0;
END;
