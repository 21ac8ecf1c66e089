-- CreateIndex
CREATE INDEX "submission_events_actor_type_created_at_idx" ON "submission_events"("actor_type", "created_at");
