-- Custom migration (drizzle-kit cannot express triggers): the orders' search index of 0025, order_search_grams, kept
-- right by triggers whatever writes the orders and backfilled here; it replaces the FTS5 trigram index of 0003, which
-- only narrowed a search down and left every candidate to be read and tested.
--
-- An order's grams: every suffix of its number ('#' || printf('%06d', order_seq)) and of lower(notes), cut to 16
-- characters (SEARCH_GRAM_LENGTH in src/db/schema/numbers.ts), each distinct one once. lower() and substr() are the
-- functions the list's exact test uses (instr(lower(text), lower(needle))), so a needle is in an order's text exactly
-- when one of its grams starts with the needle (or with the needle's first 16 characters). lcp: the characters a gram
-- shares with the order's gram before it in the index's (binary) order, 0 for the first: the one gram that starts
-- with a needle and shares fewer characters than the needle's length with the gram before it counts the order once.
-- SQLite triggers cannot share a statement, so the grams of a row are spelled out in each trigger below.

INSERT INTO order_status_codes (code, status)
  VALUES (0, 'pending'), (1, 'processing'), (2, 'fulfilled'), (3, 'cancelled');
--> statement-breakpoint
-- Notes hold at most 1,000 characters (MAX_NOTES_LENGTH in src/orders/schemas.ts) and an order number at most 11.
INSERT INTO search_positions (n)
  WITH RECURSIVE positions(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM positions WHERE n < 1000)
  SELECT n FROM positions;
--> statement-breakpoint
DROP TRIGGER order_trigrams_insert;
--> statement-breakpoint
DROP TRIGGER order_trigrams_update;
--> statement-breakpoint
DROP TRIGGER order_trigrams_delete;
--> statement-breakpoint
DROP TABLE order_trigrams;
--> statement-breakpoint
INSERT INTO order_search_grams (account, gram, order_seq, lcp, status)
  SELECT account, gram, order_seq,
    CASE WHEN prev IS NULL THEN 0 ELSE coalesce(
      (SELECT min(n) - 1 FROM search_positions
        WHERE n <= min(length(prev), length(gram)) AND substr(prev, n, 1) <> substr(gram, n, 1)),
      min(length(prev), length(gram))) END,
    status
  FROM (
    SELECT account, order_seq, status, gram, lag(gram) OVER (PARTITION BY order_seq ORDER BY gram) AS prev
    FROM (
      SELECT DISTINCT customer_numbers.number AS account, texts.order_seq, order_status_codes.code AS status,
        substr(texts.text, search_positions.n, 16) AS gram
      FROM (
        SELECT customer_id, order_seq, status, '#' || printf('%06d', order_seq) AS text FROM orders
        UNION ALL SELECT customer_id, order_seq, status, lower(notes) FROM orders
      ) AS texts
      JOIN customer_numbers ON customer_numbers.customer_id = texts.customer_id
      JOIN order_status_codes ON order_status_codes.status = texts.status
      JOIN search_positions ON search_positions.n <= length(texts.text)
    )
  )
  -- In the index's order, so each row is appended rather than put in the middle of a large index.
  ORDER BY account, gram, order_seq;
--> statement-breakpoint
CREATE TRIGGER order_search_grams_insert AFTER INSERT ON orders BEGIN
  INSERT INTO order_search_grams (account, gram, order_seq, lcp, status)
    SELECT (SELECT number FROM customer_numbers WHERE customer_id = NEW.customer_id), gram, NEW.order_seq,
      CASE WHEN prev IS NULL THEN 0 ELSE coalesce(
        (SELECT min(n) - 1 FROM search_positions
          WHERE n <= min(length(prev), length(gram)) AND substr(prev, n, 1) <> substr(gram, n, 1)),
        min(length(prev), length(gram))) END,
      (SELECT code FROM order_status_codes WHERE status = NEW.status)
    FROM (
      SELECT gram, lag(gram) OVER (ORDER BY gram) AS prev FROM (
        SELECT DISTINCT substr(texts.text, search_positions.n, 16) AS gram
        FROM (SELECT '#' || printf('%06d', NEW.order_seq) AS text UNION ALL SELECT lower(NEW.notes)) AS texts
        JOIN search_positions ON search_positions.n <= length(texts.text)
      )
    );
END;
--> statement-breakpoint
CREATE TRIGGER order_search_grams_delete AFTER DELETE ON orders BEGIN
  DELETE FROM order_search_grams
    WHERE account = (SELECT number FROM customer_numbers WHERE customer_id = OLD.customer_id)
      AND order_seq = OLD.order_seq
      AND gram IN (
        SELECT substr(texts.text, search_positions.n, 16)
        FROM (SELECT '#' || printf('%06d', OLD.order_seq) AS text UNION ALL SELECT lower(OLD.notes)) AS texts
        JOIN search_positions ON search_positions.n <= length(texts.text)
      );
END;
--> statement-breakpoint
-- A new text (or owner, or number): the old grams out, the new ones in, as a delete and an insert would.
CREATE TRIGGER order_search_grams_update_text AFTER UPDATE OF customer_id, order_seq, notes ON orders
  WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.order_seq IS NOT NEW.order_seq OR OLD.notes IS NOT NEW.notes
BEGIN
  DELETE FROM order_search_grams
    WHERE account = (SELECT number FROM customer_numbers WHERE customer_id = OLD.customer_id)
      AND order_seq = OLD.order_seq
      AND gram IN (
        SELECT substr(texts.text, search_positions.n, 16)
        FROM (SELECT '#' || printf('%06d', OLD.order_seq) AS text UNION ALL SELECT lower(OLD.notes)) AS texts
        JOIN search_positions ON search_positions.n <= length(texts.text)
      );
  INSERT INTO order_search_grams (account, gram, order_seq, lcp, status)
    SELECT (SELECT number FROM customer_numbers WHERE customer_id = NEW.customer_id), gram, NEW.order_seq,
      CASE WHEN prev IS NULL THEN 0 ELSE coalesce(
        (SELECT min(n) - 1 FROM search_positions
          WHERE n <= min(length(prev), length(gram)) AND substr(prev, n, 1) <> substr(gram, n, 1)),
        min(length(prev), length(gram))) END,
      (SELECT code FROM order_status_codes WHERE status = NEW.status)
    FROM (
      SELECT gram, lag(gram) OVER (ORDER BY gram) AS prev FROM (
        SELECT DISTINCT substr(texts.text, search_positions.n, 16) AS gram
        FROM (SELECT '#' || printf('%06d', NEW.order_seq) AS text UNION ALL SELECT lower(NEW.notes)) AS texts
        JOIN search_positions ON search_positions.n <= length(texts.text)
      )
    );
END;
--> statement-breakpoint
-- Only the status: the grams stay, their status changes. (With the text too, the trigger above wrote them anew.)
CREATE TRIGGER order_search_grams_update_status AFTER UPDATE OF status ON orders
  WHEN OLD.status IS NOT NEW.status AND OLD.customer_id IS NEW.customer_id AND OLD.order_seq IS NEW.order_seq
    AND OLD.notes IS NEW.notes
BEGIN
  UPDATE order_search_grams SET status = (SELECT code FROM order_status_codes WHERE status = NEW.status)
    WHERE account = (SELECT number FROM customer_numbers WHERE customer_id = NEW.customer_id)
      AND order_seq = NEW.order_seq
      AND gram IN (
        SELECT substr(texts.text, search_positions.n, 16)
        FROM (SELECT '#' || printf('%06d', NEW.order_seq) AS text UNION ALL SELECT lower(NEW.notes)) AS texts
        JOIN search_positions ON search_positions.n <= length(texts.text)
      );
END;
