CREATE TABLE `competitions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`weight_input` real DEFAULT 1 NOT NULL,
	`weight_cached_input` real DEFAULT 0.1 NOT NULL,
	`weight_output` real DEFAULT 3 NOT NULL,
	`burn_ratio` real DEFAULT 0 NOT NULL,
	`judge_votes` integer DEFAULT 5 NOT NULL,
	`final_stages` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `miner_tasks` (
	`competition_id` text NOT NULL,
	`task_id` text NOT NULL,
	`hotkey` text NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`resolved` integer DEFAULT 0 NOT NULL,
	`token_count` integer DEFAULT 0 NOT NULL,
	`input_sum` integer DEFAULT 0 NOT NULL,
	`cached_sum` integer DEFAULT 0 NOT NULL,
	`output_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`competition_id`, `task_id`, `hotkey`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `miners` (
	`competition_id` text NOT NULL,
	`hotkey` text NOT NULL,
	`excluded` integer DEFAULT false NOT NULL,
	`reason` text,
	PRIMARY KEY(`competition_id`, `hotkey`),
	FOREIGN KEY (`competition_id`) REFERENCES `competitions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `runs` (
	`competition_id` text NOT NULL,
	`run_id` text NOT NULL,
	`task_id` text NOT NULL,
	`kind` text NOT NULL,
	`miner_hotkey` text,
	`validator_id` text,
	`attempt_no` integer,
	`resolved` integer NOT NULL,
	`tokens_input` integer,
	`tokens_cached_input` integer,
	`tokens_output` integer,
	`time_taken_seconds` real,
	`agent_steps` integer,
	`rubric_votes` text,
	`grading` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`competition_id`, `run_id`),
	FOREIGN KEY (`competition_id`,`task_id`) REFERENCES `tasks`(`competition_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `task_criteria` (
	`competition_id` text NOT NULL,
	`task_id` text NOT NULL,
	`id` text NOT NULL,
	`position` integer NOT NULL,
	`title` text NOT NULL,
	`type` text NOT NULL,
	`importance` text NOT NULL,
	`original_title` text NOT NULL,
	`change` text,
	`graded` integer DEFAULT 0 NOT NULL,
	`met` integer DEFAULT 0 NOT NULL,
	`split` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`competition_id`, `task_id`, `id`),
	FOREIGN KEY (`competition_id`,`task_id`) REFERENCES `tasks`(`competition_id`,`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `tasks` (
	`competition_id` text NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`stage` text NOT NULL,
	`complexity` text,
	`planned_runs` integer,
	`qna` text,
	`baseline_runs` integer DEFAULT 0 NOT NULL,
	`baseline_resolved` integer DEFAULT 0 NOT NULL,
	`baseline_token_count` integer DEFAULT 0 NOT NULL,
	`baseline_input_sum` integer DEFAULT 0 NOT NULL,
	`baseline_cached_sum` integer DEFAULT 0 NOT NULL,
	`baseline_output_sum` integer DEFAULT 0 NOT NULL,
	`run_count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`competition_id`, `id`),
	FOREIGN KEY (`competition_id`) REFERENCES `competitions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `validators` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`revoked_at` text
);
