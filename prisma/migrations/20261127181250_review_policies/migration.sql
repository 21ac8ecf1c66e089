-- AlterTable
ALTER TABLE "submissions" ADD COLUMN     "approved_by" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "signals" JSONB;

-- CreateTable
CREATE TABLE "channel_policies" (
    "channel_id" TEXT NOT NULL,
    "policy" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by" TEXT NOT NULL,

    CONSTRAINT "channel_policies_pkey" PRIMARY KEY ("channel_id")
);

-- CreateTable
CREATE TABLE "policy_changes" (
    "id" BIGSERIAL NOT NULL,
    "channel_id" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "old_policy" JSONB,
    "new_policy" JSONB,

    CONSTRAINT "policy_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "policy_changes_channel_id_id_idx" ON "policy_changes"("channel_id", "id");

-- CreateIndex
CREATE INDEX "submissions_status_channel_id_due_at_review_priority_create_idx" ON "submissions"("status", "channel_id", "due_at", "review_priority" DESC, "created_at", "id");

-- AddForeignKey
ALTER TABLE "channel_policies" ADD CONSTRAINT "channel_policies_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_changes" ADD CONSTRAINT "policy_changes_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;
