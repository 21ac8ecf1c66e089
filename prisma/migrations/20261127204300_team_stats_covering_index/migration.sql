-- The Team view (GET /review/team) at 500,000 decided frames: a reviewer's acts are read from the
-- index alone (an index-only scan in time order, no heap page per event), and the `data` of only
-- the decisions a policy sampled. The first index also serves GET /review/stats (decision times);
-- it replaces the (actor_type, actor_id, created_at, id) index, which nothing else reads.
-- The predicates are written as PostgreSQL prints them back, so that schema.prisma's `where: raw(…)`
-- and these migrations do not drift.

-- DropIndex
DROP INDEX "submission_events_actor_type_actor_id_created_at_id_idx";

-- CreateIndex
CREATE INDEX "submission_events_reviewer_acts_idx" ON "submission_events"("actor_id", "created_at", "id", "type", "to_status", "submission_id") WHERE (actor_type = 'reviewer');

-- CreateIndex
CREATE INDEX "submission_events_reviewer_sampled_idx" ON "submission_events"("actor_id", "created_at", "id") WHERE (actor_type = 'reviewer' AND jsonb_typeof(data -> 'agrees_with_policy') = 'boolean');

-- An index-only scan skips the heap only for pages the visibility map marks all-visible, which
-- VACUUM sets. Inserts trigger autovacuum after 20% of the table by default: at 2 million events a
-- year, every 70 days or so, so the Team view's 30-day window would mostly read the heap. At 1%
-- (every 20,000 events), only the events since the last run do.
ALTER TABLE "submission_events" SET (autovacuum_vacuum_insert_scale_factor = 0.01);
