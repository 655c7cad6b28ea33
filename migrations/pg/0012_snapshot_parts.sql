ALTER TABLE "snapshots" ADD COLUMN "summary" text;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "final_weights" text;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "burn_weight" double precision;--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "miners" text;