ALTER TABLE "snapshots" ADD COLUMN "summary" text;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "final_weights" text;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "burn_weight" double precision;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "miners" text;--> statement-breakpoint
-- The parts of the snapshots stored before, as src/db/snapshots.ts snapshotParts derives them; read
-- as json (its text kept as written, key order included), not jsonb.
UPDATE "snapshots" AS s SET
  "summary" = coalesce((SELECT json_object_agg(e.key, e.value ORDER BY e.n)::text
    FROM json_each(d.j) WITH ORDINALITY AS e(key, value, n)
    WHERE e.key NOT IN ('leaderboard', 'weights', 'chain')), '{}'),
  "final_weights" = (d.j -> 'weights' -> 'finalWeights')::text,
  "burn_weight" = CASE WHEN json_typeof(d.j -> 'weights' -> 'burnWeight') = 'number'
    THEN (d.j -> 'weights' ->> 'burnWeight')::double precision END,
  "miners" = coalesce((SELECT json_object_agg(m.value ->> 'hotkey', json_build_array(m.value -> 'rank',
      m.value -> 'normalizedScore', m.value -> 'incentive' -> 'finalWeight') ORDER BY m.n)::text
    FROM json_array_elements(CASE WHEN json_typeof(d.j -> 'leaderboard' -> 'miners') = 'array'
      THEN d.j -> 'leaderboard' -> 'miners' END) WITH ORDINALITY AS m(value, n)), '{}')
FROM (SELECT competition_id, seq, "document"::json AS j FROM "snapshots") AS d
WHERE d.competition_id = s.competition_id AND d.seq = s.seq;
