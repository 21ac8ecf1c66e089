-- The agent's feedback record (GET /v1/agents/{slug}/feedback, MCP get_feedback; issue 43) reads a
-- window of the agent's frames from indexes only: counts by status, top reasons and the decided
-- frames from submissions_agent_record_idx (an index-only range scan over (agent_id, created_at)),
-- the time each reached needs_review from one probe of submission_events_needs_review_idx, and the
-- latest rejections from submissions_agent_rejections_idx (a LIMIT of entries in decision order),
-- so no read grows with the agent's whole history (docs/performance.md).

-- CreateIndex
CREATE INDEX "submission_events_needs_review_idx" ON "submission_events"("submission_id", "created_at") WHERE (to_status = 'needs_review'::"SubmissionStatus");

-- CreateIndex
CREATE INDEX "submissions_agent_record_idx" ON "submissions"("agent_id", "created_at", "status", "review_reason", "reviewed_at", "id");

-- CreateIndex
CREATE INDEX "submissions_agent_rejections_idx" ON "submissions"("agent_id", "reviewed_at" DESC, "id" DESC) WHERE (status = 'rejected'::"SubmissionStatus");
