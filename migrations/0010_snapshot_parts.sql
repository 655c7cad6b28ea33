ALTER TABLE `snapshots` ADD `summary` text;--> statement-breakpoint
ALTER TABLE `snapshots` ADD `final_weights` text;--> statement-breakpoint
ALTER TABLE `snapshots` ADD `burn_weight` real;--> statement-breakpoint
ALTER TABLE `snapshots` ADD `miners` text;--> statement-breakpoint
-- The parts of the snapshots stored before, as src/db/snapshots.ts snapshotParts derives them.
UPDATE `snapshots` SET
  `summary` = json_remove(`document`, '$.leaderboard', '$.weights', '$.chain'),
  `final_weights` = `document` -> '$.weights.finalWeights',
  `burn_weight` = CASE WHEN json_type(`document`, '$.weights.burnWeight') IN ('integer', 'real')
    THEN json_extract(`document`, '$.weights.burnWeight') END,
  `miners` = coalesce((SELECT json_group_object(m.value ->> '$.hotkey', json_array(m.value -> '$.rank',
      m.value -> '$.normalizedScore', m.value -> '$.incentive.finalWeight'))
    FROM json_each(`document`, '$.leaderboard.miners') AS m), '{}');
