CREATE TABLE `judges` (
	`competition_id` text NOT NULL,
	`version` integer NOT NULL,
	`recorded_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`document` text NOT NULL,
	`digest` text NOT NULL,
	PRIMARY KEY(`competition_id`, `version`),
	FOREIGN KEY (`competition_id`) REFERENCES `competitions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `judges_digest` ON `judges` (`competition_id`,`digest`);--> statement-breakpoint
ALTER TABLE `deleted_runs` ADD `judge_digest` text;--> statement-breakpoint
ALTER TABLE `deleted_runs` ADD `answer_date` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `judge_digest` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `answer_date` text;