-- The stock list reads newest import first, by number within one: an index in that order serves it without sorting
-- a whole import (every row of one import shares its imported_at).
DROP INDEX `stock_numbers_imported_idx`;--> statement-breakpoint
CREATE INDEX `stock_numbers_imported_idx` ON `stock_numbers` ("imported_at" desc,`phone_number`);