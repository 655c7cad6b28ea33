-- Version 1.1: signing validators, per-competition validator standing, replay protection, the audit
-- log, snapshots, and the run sequence (runs keyed by an AUTOINCREMENT rowid, deleted runs kept).
-- Edited after drizzle-kit: old rows are copied with their rowid as sequence, old validators get no
-- hotkey, and the small key-value tables are WITHOUT ROWID.
CREATE TABLE `audit_log` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text,
	`action` text NOT NULL,
	`competition_id` text,
	`target` text NOT NULL,
	`summary` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_competition` ON `audit_log` (`competition_id`,`seq`);--> statement-breakpoint
CREATE TABLE `competition_validators` (
	`competition_id` text NOT NULL,
	`validator_id` text NOT NULL,
	`excluded` integer DEFAULT false NOT NULL,
	`reason` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`competition_id`, `validator_id`),
	FOREIGN KEY (`competition_id`) REFERENCES `competitions`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `deleted_runs` (
	`seq` integer NOT NULL,
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
	`deleted_seq` integer NOT NULL,
	`deleted_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`competition_id`, `deleted_seq`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `deleted_runs_seq` ON `deleted_runs` (`competition_id`,`seq`);--> statement-breakpoint
CREATE TABLE `signature_nonces` (
	`public_key` text NOT NULL,
	`uuid` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`public_key`, `uuid`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `signature_nonces_expiry` ON `signature_nonces` (`expires_at`);--> statement-breakpoint
CREATE TABLE `snapshots` (
	`competition_id` text NOT NULL,
	`seq` integer NOT NULL,
	`taken_at` text NOT NULL,
	`run_seq` integer NOT NULL,
	`document` text NOT NULL,
	`input_head` text NOT NULL,
	`hash` text NOT NULL,
	PRIMARY KEY(`competition_id`, `seq`)
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_runs` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
	FOREIGN KEY (`competition_id`,`task_id`) REFERENCES `tasks`(`competition_id`,`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_runs`("seq", "competition_id", "run_id", "task_id", "kind", "miner_hotkey", "validator_id", "attempt_no", "resolved", "tokens_input", "tokens_cached_input", "tokens_output", "time_taken_seconds", "agent_steps", "rubric_votes", "grading", "created_at") SELECT "seq", "competition_id", "run_id", "task_id", "kind", "miner_hotkey", "validator_id", "attempt_no", "resolved", "tokens_input", "tokens_cached_input", "tokens_output", "time_taken_seconds", "agent_steps", "rubric_votes", "grading", "created_at" FROM (SELECT rowid AS "seq", * FROM `runs` ORDER BY rowid);--> statement-breakpoint
DROP TABLE `runs`;--> statement-breakpoint
ALTER TABLE `__new_runs` RENAME TO `runs`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `runs_competition_run` ON `runs` (`competition_id`,`run_id`);--> statement-breakpoint
CREATE TABLE `__new_validators` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text,
	`hotkey` text,
	`public_key` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
INSERT INTO `__new_validators`("id", "name", "key_hash", "hotkey", "public_key", "created_at", "revoked_at") SELECT "id", "name", "key_hash", NULL, NULL, "created_at", "revoked_at" FROM `validators`;--> statement-breakpoint
DROP TABLE `validators`;--> statement-breakpoint
ALTER TABLE `__new_validators` RENAME TO `validators`;--> statement-breakpoint
CREATE UNIQUE INDEX `validators_public_key_unique` ON `validators` (`public_key`);--> statement-breakpoint
ALTER TABLE `competitions` ADD `reveal_answers` integer DEFAULT false NOT NULL;