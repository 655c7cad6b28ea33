-- 1.2 storage: per-task run counts leave the wide tasks rows, and miner aggregates are keyed miner first,
-- so a batch dirties fewer pages (hand-edited after drizzle-kit: WITHOUT ROWID, counts carried over).
CREATE TABLE `task_run_counts` (
	`competition_id` text NOT NULL,
	`task_id` text NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`competition_id`, `task_id`),
	FOREIGN KEY (`competition_id`,`task_id`) REFERENCES `tasks`(`competition_id`,`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `task_run_counts` (`competition_id`, `task_id`, `runs`) SELECT `competition_id`, `id`, `run_count` FROM `tasks` WHERE `run_count` <> 0;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_miner_tasks` (
	`competition_id` text NOT NULL,
	`task_id` text NOT NULL,
	`hotkey` text NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`resolved` integer DEFAULT 0 NOT NULL,
	`token_count` integer DEFAULT 0 NOT NULL,
	`input_sum` integer DEFAULT 0 NOT NULL,
	`cached_sum` integer DEFAULT 0 NOT NULL,
	`output_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`competition_id`, `hotkey`, `task_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_miner_tasks`("competition_id", "task_id", "hotkey", "runs", "resolved", "token_count", "input_sum", "cached_sum", "output_sum") SELECT "competition_id", "task_id", "hotkey", "runs", "resolved", "token_count", "input_sum", "cached_sum", "output_sum" FROM `miner_tasks`;--> statement-breakpoint
DROP TABLE `miner_tasks`;--> statement-breakpoint
ALTER TABLE `__new_miner_tasks` RENAME TO `miner_tasks`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
ALTER TABLE `tasks` DROP COLUMN `run_count`;