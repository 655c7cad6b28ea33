CREATE TABLE `signing_keys` (
	`position` integer PRIMARY KEY NOT NULL,
	`fingerprint` text NOT NULL,
	`public_key` text NOT NULL,
	`recorded_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`starts` text NOT NULL
);
