-- CreateIndex
CREATE INDEX "submission_events_actor_type_actor_id_created_at_id_idx" ON "submission_events"("actor_type", "actor_id", "created_at", "id");
