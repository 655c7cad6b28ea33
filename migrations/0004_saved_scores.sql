-- Scores saved at a graceful shutdown (src/db/savedScores.ts) stand for the data as it was then.
-- Any later change to what the scores are computed from (a competition's settings, its tasks, its
-- miners, its (task, miner) aggregates) deletes the competition's saved row, in the writing
-- transaction and whichever process writes: a row that is there is current.
CREATE TABLE `saved_scores` (
	`competition_id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`stages` text NOT NULL,
	`scores` text NOT NULL,
	`saved_at` text NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `saved_scores_miner_tasks_insert` AFTER INSERT ON `miner_tasks` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = NEW.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_miner_tasks_update` AFTER UPDATE ON `miner_tasks` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = NEW.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_miner_tasks_delete` AFTER DELETE ON `miner_tasks` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = OLD.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_tasks_insert` AFTER INSERT ON `tasks` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = NEW.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_tasks_update` AFTER UPDATE ON `tasks` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = NEW.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_tasks_delete` AFTER DELETE ON `tasks` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = OLD.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_miners_insert` AFTER INSERT ON `miners` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = NEW.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_miners_update` AFTER UPDATE ON `miners` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = NEW.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_miners_delete` AFTER DELETE ON `miners` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = OLD.`competition_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_competitions_update` AFTER UPDATE ON `competitions` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_scores_competitions_delete` AFTER DELETE ON `competitions` BEGIN
  DELETE FROM `saved_scores` WHERE `competition_id` = OLD.`id`;
END;
