-- Scores a server process saved as it shut down (src/db/pg/savedScores.ts), with the competition
-- version they stand for: the next start restores a row only while competition_versions still
-- holds that version. No triggers: every write transaction of a competition bumps its version.
CREATE TABLE "saved_scores" (
	"competition_id" text PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"stages" text NOT NULL,
	"version" bigint NOT NULL,
	"scores" text NOT NULL,
	"saved_at" text NOT NULL
);
