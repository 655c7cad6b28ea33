-- A competition's validator allow-list (API.md 1.2): the ids of the validators that may write to it,
-- sorted, as JSON text; NULL (every existing competition) lets every validator write.
ALTER TABLE "competitions" ADD COLUMN "allowed_validators" text;
