-- A snapshot input is read a page at a time by run id, each page reading the live runs and the
-- runs deleted since over the same run id range (src/db/snapshots.ts): this index gives the deleted
-- side that range directly instead of a scan and a sort of the competition's deleted runs per page.
CREATE INDEX `deleted_runs_run` ON `deleted_runs` (`competition_id`,`run_id`);
