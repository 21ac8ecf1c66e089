-- CreateIndex
CREATE INDEX "submission_events_created_at_id_idx" ON "submission_events"("created_at", "id");
