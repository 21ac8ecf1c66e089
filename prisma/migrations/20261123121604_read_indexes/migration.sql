-- DropIndex
DROP INDEX "submissions_channel_id_status_date_reviewed_at_idx";

-- CreateIndex
CREATE INDEX "submissions_status_created_at_id_idx" ON "submissions"("status", "created_at", "id");

-- CreateIndex
CREATE INDEX "submissions_channel_id_status_date_reviewed_at_id_idx" ON "submissions"("channel_id", "status", "date", "reviewed_at", "id");

