-- Every metagraph recorded per competition (SPEC 11); the highest version is in force.
CREATE TABLE `metagraphs` (
	`competition_id` text NOT NULL,
	`version` integer NOT NULL,
	`recorded_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`document` text NOT NULL,
	`digest` text NOT NULL,
	PRIMARY KEY(`competition_id`, `version`),
	FOREIGN KEY (`competition_id`) REFERENCES `competitions`(`id`) ON UPDATE no action ON DELETE cascade
);
