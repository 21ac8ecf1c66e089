-- CreateIndex
CREATE INDEX "submissions_agent_id_media_type_status_idx" ON "submissions"("agent_id", "media_type", "status");
