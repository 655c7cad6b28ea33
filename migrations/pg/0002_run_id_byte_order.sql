-- Run ids in byte order, as SQLite's BINARY collation compares them: snapshot inputs and their
-- pages are read in run id order (src/db/pg/snapshots.ts), and with the column in "C" the
-- (competition_id, run_id) index gives that order; in the database's own collation every page was
-- a scan and a sort of the competition's remaining runs.
ALTER TABLE "runs" ALTER COLUMN "run_id" TYPE text COLLATE "C";--> statement-breakpoint
ALTER TABLE "deleted_runs" ALTER COLUMN "run_id" TYPE text COLLATE "C";
