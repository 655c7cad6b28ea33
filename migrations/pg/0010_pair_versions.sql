CREATE TABLE "pair_versions" (
	"competition_id" text NOT NULL,
	"task_id" text NOT NULL,
	"hotkey" text NOT NULL,
	"version" bigint NOT NULL,
	CONSTRAINT "pair_versions_competition_id_task_id_hotkey_pk" PRIMARY KEY("competition_id","task_id","hotkey")
);
--> statement-breakpoint
ALTER TABLE "competition_versions" ADD COLUMN "stamped_from" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "competition_versions" ADD COLUMN "stamped_through" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "pair_versions_version" ON "pair_versions" USING btree ("competition_id","version");