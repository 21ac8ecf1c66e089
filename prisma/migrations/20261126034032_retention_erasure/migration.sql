-- AlterTable
ALTER TABLE "channels" ADD COLUMN     "retention_failed" TEXT,
ADD COLUMN     "retention_promoted" TEXT,
ADD COLUMN     "retention_rejected" TEXT;

-- AlterTable
ALTER TABLE "submissions" ADD COLUMN     "erased_at" TIMESTAMPTZ(3),
ADD COLUMN     "purged_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "submissions_channel_id_status_purged_at_updated_at_idx" ON "submissions"("channel_id", "status", "purged_at", "updated_at");
