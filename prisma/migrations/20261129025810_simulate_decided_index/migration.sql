-- CreateIndex
CREATE INDEX "submissions_decided_by_people_idx" ON "submissions"("channel_id", "created_at", "id") WHERE ((status = ANY (ARRAY['promoted'::"SubmissionStatus", 'rejected'::"SubmissionStatus"])) AND (reviewer_id IS NOT NULL));
