ALTER TABLE "competitions" ADD COLUMN "planned_runs" integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE "competitions" ADD COLUMN "min_validator_version" text;--> statement-breakpoint
ALTER TABLE "validators" ADD COLUMN "last_seen_at" text;--> statement-breakpoint
ALTER TABLE "validators" ADD COLUMN "version" text;--> statement-breakpoint
ALTER TABLE "validators" ADD COLUMN "code_digest" text;