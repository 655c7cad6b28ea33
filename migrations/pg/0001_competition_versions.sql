CREATE TABLE "competition_versions" (
	"competition_id" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
