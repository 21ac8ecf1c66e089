-- CreateTable
CREATE TABLE "agent_decision_days" (
    "agent_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "promoted" INTEGER NOT NULL DEFAULT 0,
    "rejected" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "agent_decision_days_pkey" PRIMARY KEY ("agent_id","day")
);

-- The review policies' agent record (issue 43, point 9): per agent and day sent (UTC), the frames a
-- person decided, kept by a trigger on every change of a submission's status or reviewer, so the
-- finishing transaction sums at most 31 rows instead of counting the agent's 30 days of frames.
CREATE FUNCTION agent_decision_days_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.reviewer_id IS NOT NULL AND OLD.status IN ('promoted', 'rejected') THEN
    UPDATE agent_decision_days
       SET promoted = promoted - (OLD.status = 'promoted')::int,
           rejected = rejected - (OLD.status = 'rejected')::int
     WHERE agent_id = OLD.agent_id AND day = (OLD.created_at AT TIME ZONE 'UTC')::date;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.reviewer_id IS NOT NULL AND NEW.status IN ('promoted', 'rejected') THEN
    INSERT INTO agent_decision_days AS d (agent_id, day, promoted, rejected)
    VALUES (NEW.agent_id, (NEW.created_at AT TIME ZONE 'UTC')::date,
            (NEW.status = 'promoted')::int, (NEW.status = 'rejected')::int)
    ON CONFLICT (agent_id, day) DO UPDATE
      SET promoted = d.promoted + EXCLUDED.promoted, rejected = d.rejected + EXCLUDED.rejected;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER agent_decision_days_count
  AFTER INSERT OR DELETE OR UPDATE OF status, reviewer_id ON submissions
  FOR EACH ROW
  EXECUTE FUNCTION agent_decision_days_count();

INSERT INTO agent_decision_days (agent_id, day, promoted, rejected)
SELECT agent_id, (created_at AT TIME ZONE 'UTC')::date,
       count(*) FILTER (WHERE status = 'promoted'), count(*) FILTER (WHERE status = 'rejected')
  FROM submissions
 WHERE reviewer_id IS NOT NULL AND status IN ('promoted', 'rejected')
 GROUP BY 1, 2;
