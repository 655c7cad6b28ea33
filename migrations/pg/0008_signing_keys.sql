CREATE TABLE "signing_keys" (
	"position" integer PRIMARY KEY NOT NULL,
	"fingerprint" text NOT NULL,
	"public_key" text NOT NULL,
	"recorded_at" text DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	"starts" text NOT NULL
);
