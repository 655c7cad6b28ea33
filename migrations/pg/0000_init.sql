CREATE TABLE "audit_log" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"action" text NOT NULL,
	"competition_id" text,
	"target" text NOT NULL,
	"summary" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "competition_validators" (
	"competition_id" text NOT NULL,
	"validator_id" text NOT NULL,
	"excluded" boolean DEFAULT false NOT NULL,
	"reason" text,
	"updated_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	CONSTRAINT "competition_validators_competition_id_validator_id_pk" PRIMARY KEY("competition_id","validator_id")
);
--> statement-breakpoint
CREATE TABLE "competitions" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"weight_input" double precision DEFAULT 1 NOT NULL,
	"weight_cached_input" double precision DEFAULT 0.1 NOT NULL,
	"weight_output" double precision DEFAULT 3 NOT NULL,
	"burn_ratio" double precision DEFAULT 0 NOT NULL,
	"judge_votes" integer DEFAULT 5 NOT NULL,
	"final_stages" text NOT NULL,
	"created_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"updated_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"reveal_answers" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deleted_runs" (
	"seq" bigint NOT NULL,
	"competition_id" text NOT NULL,
	"run_id" text NOT NULL,
	"task_id" text NOT NULL,
	"kind" text NOT NULL,
	"miner_hotkey" text,
	"validator_id" text,
	"attempt_no" integer,
	"resolved" boolean NOT NULL,
	"tokens_input" bigint,
	"tokens_cached_input" bigint,
	"tokens_output" bigint,
	"time_taken_seconds" double precision,
	"agent_steps" integer,
	"rubric_votes" text,
	"grading" text,
	"created_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"deleted_seq" bigint NOT NULL,
	"deleted_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	CONSTRAINT "deleted_runs_competition_id_deleted_seq_pk" PRIMARY KEY("competition_id","deleted_seq"),
	CONSTRAINT "deleted_runs_tokens_exact" CHECK ("tokens_input" BETWEEN 0 AND 9007199254740991 AND "tokens_cached_input" BETWEEN 0 AND 9007199254740991 AND "tokens_output" BETWEEN 0 AND 9007199254740991)
);
--> statement-breakpoint
CREATE TABLE "miner_tasks" (
	"competition_id" text NOT NULL,
	"task_id" text NOT NULL,
	"hotkey" text NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL,
	"resolved" integer DEFAULT 0 NOT NULL,
	"token_count" integer DEFAULT 0 NOT NULL,
	"input_sum" bigint DEFAULT 0 NOT NULL,
	"cached_sum" bigint DEFAULT 0 NOT NULL,
	"output_sum" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "miner_tasks_competition_id_hotkey_task_id_pk" PRIMARY KEY("competition_id","hotkey","task_id"),
	CONSTRAINT "miner_tasks_sums_exact" CHECK ("input_sum" BETWEEN 0 AND 9007199254740991 AND "cached_sum" BETWEEN 0 AND 9007199254740991 AND "output_sum" BETWEEN 0 AND 9007199254740991)
);
--> statement-breakpoint
CREATE TABLE "miners" (
	"competition_id" text NOT NULL,
	"hotkey" text NOT NULL,
	"excluded" boolean DEFAULT false NOT NULL,
	"reason" text,
	CONSTRAINT "miners_competition_id_hotkey_pk" PRIMARY KEY("competition_id","hotkey")
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "runs_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"competition_id" text NOT NULL,
	"run_id" text NOT NULL,
	"task_id" text NOT NULL,
	"kind" text NOT NULL,
	"miner_hotkey" text,
	"validator_id" text,
	"attempt_no" integer,
	"resolved" boolean NOT NULL,
	"tokens_input" bigint,
	"tokens_cached_input" bigint,
	"tokens_output" bigint,
	"time_taken_seconds" double precision,
	"agent_steps" integer,
	"rubric_votes" text,
	"grading" text,
	"created_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	CONSTRAINT "runs_tokens_exact" CHECK ("tokens_input" BETWEEN 0 AND 9007199254740991 AND "tokens_cached_input" BETWEEN 0 AND 9007199254740991 AND "tokens_output" BETWEEN 0 AND 9007199254740991)
);
--> statement-breakpoint
CREATE TABLE "signature_nonces" (
	"public_key" text NOT NULL,
	"uuid" text NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "signature_nonces_public_key_uuid_pk" PRIMARY KEY("public_key","uuid")
);
--> statement-breakpoint
CREATE TABLE "snapshots" (
	"competition_id" text NOT NULL,
	"seq" integer NOT NULL,
	"taken_at" text NOT NULL,
	"run_seq" bigint NOT NULL,
	"document" text NOT NULL,
	"input_head" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "snapshots_competition_id_seq_pk" PRIMARY KEY("competition_id","seq")
);
--> statement-breakpoint
CREATE TABLE "task_criteria" (
	"competition_id" text NOT NULL,
	"task_id" text NOT NULL,
	"id" text NOT NULL,
	"position" integer NOT NULL,
	"title" text NOT NULL,
	"type" text NOT NULL,
	"importance" text NOT NULL,
	"original_title" text NOT NULL,
	"change" text,
	"graded" integer DEFAULT 0 NOT NULL,
	"met" integer DEFAULT 0 NOT NULL,
	"split" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "task_criteria_competition_id_task_id_id_pk" PRIMARY KEY("competition_id","task_id","id")
);
--> statement-breakpoint
CREATE TABLE "task_run_counts" (
	"competition_id" text NOT NULL,
	"task_id" text NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "task_run_counts_competition_id_task_id_pk" PRIMARY KEY("competition_id","task_id")
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"competition_id" text NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"stage" text NOT NULL,
	"complexity" text,
	"planned_runs" integer,
	"qna" text,
	"baseline_runs" integer DEFAULT 0 NOT NULL,
	"baseline_resolved" integer DEFAULT 0 NOT NULL,
	"baseline_token_count" integer DEFAULT 0 NOT NULL,
	"baseline_input_sum" bigint DEFAULT 0 NOT NULL,
	"baseline_cached_sum" bigint DEFAULT 0 NOT NULL,
	"baseline_output_sum" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "tasks_competition_id_id_pk" PRIMARY KEY("competition_id","id"),
	CONSTRAINT "tasks_baseline_sums_exact" CHECK ("baseline_input_sum" BETWEEN 0 AND 9007199254740991 AND "baseline_cached_sum" BETWEEN 0 AND 9007199254740991 AND "baseline_output_sum" BETWEEN 0 AND 9007199254740991)
);
--> statement-breakpoint
CREATE TABLE "validators" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"key_hash" text,
	"hotkey" text,
	"public_key" text,
	"created_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"revoked_at" text,
	CONSTRAINT "validators_public_key_unique" UNIQUE("public_key")
);
--> statement-breakpoint
ALTER TABLE "competition_validators" ADD CONSTRAINT "competition_validators_competition_id_competitions_id_fk" FOREIGN KEY ("competition_id") REFERENCES "public"."competitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "miners" ADD CONSTRAINT "miners_competition_id_competitions_id_fk" FOREIGN KEY ("competition_id") REFERENCES "public"."competitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_competition_id_task_id_tasks_competition_id_id_fk" FOREIGN KEY ("competition_id","task_id") REFERENCES "public"."tasks"("competition_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_criteria" ADD CONSTRAINT "task_criteria_competition_id_task_id_tasks_competition_id_id_fk" FOREIGN KEY ("competition_id","task_id") REFERENCES "public"."tasks"("competition_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_run_counts" ADD CONSTRAINT "task_run_counts_competition_id_task_id_tasks_competition_id_id_fk" FOREIGN KEY ("competition_id","task_id") REFERENCES "public"."tasks"("competition_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_competition_id_competitions_id_fk" FOREIGN KEY ("competition_id") REFERENCES "public"."competitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_competition" ON "audit_log" USING btree ("competition_id","seq");--> statement-breakpoint
CREATE INDEX "deleted_runs_seq" ON "deleted_runs" USING btree ("competition_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_competition_run" ON "runs" USING btree ("competition_id","run_id");--> statement-breakpoint
CREATE INDEX "signature_nonces_expiry" ON "signature_nonces" USING btree ("expires_at");