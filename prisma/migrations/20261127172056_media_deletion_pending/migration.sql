-- AlterTable
ALTER TABLE "submissions" ADD COLUMN     "deletion_error" TEXT,
ADD COLUMN     "deletion_pending_since" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "submissions_deletion_pending_since_idx" ON "submissions"("deletion_pending_since");
