-- Every metagraph recorded per competition (SPEC 11); the highest version is in force.
CREATE TABLE "metagraphs" (
	"competition_id" text NOT NULL,
	"version" integer NOT NULL,
	"recorded_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"document" text NOT NULL,
	"digest" text NOT NULL,
	CONSTRAINT "metagraphs_competition_id_version_pk" PRIMARY KEY("competition_id","version")
);
--> statement-breakpoint
ALTER TABLE "metagraphs" ADD CONSTRAINT "metagraphs_competition_id_competitions_id_fk" FOREIGN KEY ("competition_id") REFERENCES "public"."competitions"("id") ON DELETE cascade ON UPDATE no action;