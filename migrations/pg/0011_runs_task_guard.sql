-- The runs' reference to their task, held by triggers instead of a foreign key (issue 41;
-- src/db/pg/schema/scoring.ts, runsTaskGuard). The foreign key ran one query a run, each locking
-- the task row (FOR KEY SHARE): 4.5 ms of a 13 ms 1,000-run insert. The triggers below check a
-- statement's new runs at once and refuse what the foreign key refused, with its SQLSTATE 23503
-- (foreign_key_violation): a run naming a task that does not exist, and a task deleted, truncated
-- or given another key while runs still name it. The tasks a statement's runs name are locked
-- FOR KEY SHARE as the foreign key locked them, once a task, so that a task deleted by a
-- concurrent transaction is either seen gone here or waits for this one to commit, then sees its
-- runs. Tasks are removed under READ COMMITTED only (tasks_runs_left_read_committed). UPDATE
-- triggers are per row: PostgreSQL gives no transition table to a trigger with a column list, and
-- without one every update of a task's aggregates would fill one; key updates never come from the
-- server, so the WHEN condition skips every row it updates. drizzle-kit knows no triggers: its
-- snapshot (meta/0011_snapshot.json) has the foreign key gone and nothing else.
ALTER TABLE "runs" DROP CONSTRAINT "runs_competition_id_task_id_tasks_competition_id_id_fk";--> statement-breakpoint
CREATE FUNCTION "runs_task_exists_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  locked bigint;
  missing record;
BEGIN
  -- Each task the new runs name, locked once; a task deleted or given another key by a transaction
  -- that committed while this one waited for the lock is skipped, and counts as missing.
  PERFORM FROM public.tasks t
    WHERE (t.competition_id, t.id) IN (SELECT n.competition_id, n.task_id FROM new_runs n)
    FOR KEY SHARE OF t;
  GET DIAGNOSTICS locked = ROW_COUNT;
  IF locked = (SELECT count(*) FROM (SELECT DISTINCT n.competition_id, n.task_id FROM new_runs n) named) THEN
    RETURN NULL;
  END IF;
  -- Refused: which task, for the message (a statement of its own, so it sees what committed since).
  SELECT n.competition_id, n.task_id INTO missing FROM new_runs n
    WHERE NOT EXISTS (SELECT FROM public.tasks t WHERE t.competition_id = n.competition_id AND t.id = n.task_id)
    LIMIT 1;
  RAISE foreign_key_violation USING
    MESSAGE = format('insert into table "runs": no task (competition_id, id)=(%s, %s) in table "tasks"',
      missing.competition_id, missing.task_id),
    DETAIL = format('Key (competition_id, task_id)=(%s, %s) is not present in table "tasks".',
      missing.competition_id, missing.task_id),
    CONSTRAINT = 'runs_task_guard', SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME;
END $$;--> statement-breakpoint
CREATE FUNCTION "runs_task_exists_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM public.tasks t WHERE t.competition_id = NEW.competition_id AND t.id = NEW.task_id FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE foreign_key_violation USING
      MESSAGE = format('update of table "runs": no task (competition_id, id)=(%s, %s) in table "tasks"',
        NEW.competition_id, NEW.task_id),
      DETAIL = format('Key (competition_id, task_id)=(%s, %s) is not present in table "tasks".',
        NEW.competition_id, NEW.task_id),
      CONSTRAINT = 'runs_task_guard', SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- A task removed under REPEATABLE READ or SERIALIZABLE is refused: the checks below read runs in the
-- transaction's snapshot, which misses the runs of a transaction that held the task's lock and
-- committed since (the foreign key's own check reads past the snapshot; a function cannot).
CREATE FUNCTION "tasks_runs_left_read_committed"(action text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE feature_not_supported USING
      MESSAGE = format('%s table "tasks" under %s: runs inserted meanwhile by other transactions would not be seen',
        action, upper(current_setting('transaction_isolation'))),
      HINT = 'Remove tasks under READ COMMITTED.',
      CONSTRAINT = 'runs_task_guard', SCHEMA = 'public', TABLE = 'tasks';
  END IF;
END $$;--> statement-breakpoint
CREATE FUNCTION "tasks_runs_left_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  named record;
BEGIN
  SELECT o.competition_id, o.id INTO named FROM old_tasks o
    WHERE EXISTS (SELECT FROM public.runs r WHERE r.competition_id = o.competition_id AND r.task_id = o.id)
    LIMIT 1;
  IF FOUND THEN
    RAISE foreign_key_violation USING
      MESSAGE = format('delete from table "tasks": runs still name task (competition_id, id)=(%s, %s)',
        named.competition_id, named.id),
      DETAIL = format('Key (competition_id, id)=(%s, %s) is still referenced from table "runs".',
        named.competition_id, named.id),
      CONSTRAINT = 'runs_task_guard', SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME;
  END IF;
  IF EXISTS (SELECT FROM old_tasks) THEN
    PERFORM public."tasks_runs_left_read_committed"('delete from');
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "tasks_runs_left_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- At the end of the statement, as the foreign key checked: another row may have taken the old key.
  IF EXISTS (SELECT FROM public.runs r WHERE r.competition_id = OLD.competition_id AND r.task_id = OLD.id)
    AND NOT EXISTS (SELECT FROM public.tasks t WHERE t.competition_id = OLD.competition_id AND t.id = OLD.id) THEN
    RAISE foreign_key_violation USING
      MESSAGE = format('update of table "tasks": runs still name task (competition_id, id)=(%s, %s)',
        OLD.competition_id, OLD.id),
      DETAIL = format('Key (competition_id, id)=(%s, %s) is still referenced from table "runs".',
        OLD.competition_id, OLD.id),
      CONSTRAINT = 'runs_task_guard', SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME;
  END IF;
  PERFORM public."tasks_runs_left_read_committed"('update of');
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "tasks_runs_left_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- After every table of the TRUNCATE is emptied: `TRUNCATE tasks, runs` passes, as with the foreign key.
  IF EXISTS (SELECT FROM public.runs) THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'truncate of table "tasks": table "runs" still has rows naming tasks',
      HINT = 'Truncate table "runs" at the same time.',
      CONSTRAINT = 'runs_task_guard', SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME;
  END IF;
  PERFORM public."tasks_runs_left_read_committed"('truncate of');
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "runs_task_exists_insert" AFTER INSERT ON "runs" REFERENCING NEW TABLE AS new_runs
  FOR EACH STATEMENT EXECUTE FUNCTION "runs_task_exists_insert"();--> statement-breakpoint
CREATE TRIGGER "runs_task_exists_update" AFTER UPDATE OF "competition_id", "task_id" ON "runs" FOR EACH ROW
  WHEN (OLD.competition_id IS DISTINCT FROM NEW.competition_id OR OLD.task_id IS DISTINCT FROM NEW.task_id)
  EXECUTE FUNCTION "runs_task_exists_update"();--> statement-breakpoint
CREATE TRIGGER "tasks_runs_left_delete" AFTER DELETE ON "tasks" REFERENCING OLD TABLE AS old_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION "tasks_runs_left_delete"();--> statement-breakpoint
CREATE TRIGGER "tasks_runs_left_update" AFTER UPDATE OF "competition_id", "id" ON "tasks" FOR EACH ROW
  WHEN (OLD.competition_id IS DISTINCT FROM NEW.competition_id OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION "tasks_runs_left_update"();--> statement-breakpoint
CREATE TRIGGER "tasks_runs_left_truncate" AFTER TRUNCATE ON "tasks"
  FOR EACH STATEMENT EXECUTE FUNCTION "tasks_runs_left_truncate"();
