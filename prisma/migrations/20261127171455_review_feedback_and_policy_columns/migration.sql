-- AlterTable
ALTER TABLE "submissions" ADD COLUMN     "approvals_required" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "due_at" TIMESTAMPTZ(3),
ADD COLUMN     "policy_outcome" JSONB,
ADD COLUMN     "review_note" TEXT,
ADD COLUMN     "review_priority" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "review_regions" JSONB,
ADD COLUMN     "review_rule" TEXT,
ADD COLUMN     "revision_of" TEXT;

-- CreateIndex
CREATE INDEX "submissions_revision_of_idx" ON "submissions"("revision_of");
