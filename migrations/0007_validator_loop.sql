ALTER TABLE `competitions` ADD `planned_runs` integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE `competitions` ADD `min_validator_version` text;--> statement-breakpoint
ALTER TABLE `validators` ADD `last_seen_at` text;--> statement-breakpoint
ALTER TABLE `validators` ADD `version` text;--> statement-breakpoint
ALTER TABLE `validators` ADD `code_digest` text;