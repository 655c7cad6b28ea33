CREATE TABLE "judges" (
	"competition_id" text NOT NULL,
	"version" integer NOT NULL,
	"recorded_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"document" text NOT NULL,
	"digest" text NOT NULL,
	CONSTRAINT "judges_competition_id_version_pk" PRIMARY KEY("competition_id","version")
);
--> statement-breakpoint
ALTER TABLE "deleted_runs" ADD COLUMN "judge_digest" text;--> statement-breakpoint
ALTER TABLE "deleted_runs" ADD COLUMN "answer_date" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "judge_digest" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "answer_date" text;--> statement-breakpoint
ALTER TABLE "judges" ADD CONSTRAINT "judges_competition_id_competitions_id_fk" FOREIGN KEY ("competition_id") REFERENCES "public"."competitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "judges_digest" ON "judges" USING btree ("competition_id","digest");