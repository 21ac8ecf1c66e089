-- AlterTable
ALTER TABLE "channels" ADD COLUMN     "reject_reasons" JSONB;

-- CreateTable
CREATE TABLE "review_notes" (
    "id" BIGSERIAL NOT NULL,
    "submission_id" TEXT NOT NULL,
    "reviewer_id" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "review_notes_submission_id_id_idx" ON "review_notes"("submission_id", "id");

-- AddForeignKey
ALTER TABLE "review_notes" ADD CONSTRAINT "review_notes_submission_id_fkey" FOREIGN KEY ("submission_id") REFERENCES "submissions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_notes" ADD CONSTRAINT "review_notes_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "reviewers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
