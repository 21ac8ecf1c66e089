-- CreateEnum
CREATE TYPE "ReviewerRole" AS ENUM ('admin', 'reviewer');

-- AlterTable
ALTER TABLE "reviewers" ADD COLUMN     "last_seen_at" TIMESTAMPTZ(3),
ADD COLUMN     "role" "ReviewerRole" NOT NULL DEFAULT 'reviewer',
ALTER COLUMN "password_hash" DROP NOT NULL;

-- CreateTable
CREATE TABLE "reviewer_channels" (
    "reviewer_id" TEXT NOT NULL,
    "channel_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reviewer_channels_pkey" PRIMARY KEY ("reviewer_id","channel_id")
);

-- CreateIndex
CREATE INDEX "reviewer_channels_channel_id_idx" ON "reviewer_channels"("channel_id");

-- AddForeignKey
ALTER TABLE "reviewer_channels" ADD CONSTRAINT "reviewer_channels_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "reviewers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviewer_channels" ADD CONSTRAINT "reviewer_channels_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Everyone who could review before roles existed saw every channel and ran ops: they become
-- admins, so an upgrade locks nobody out. Accounts created from now on are `reviewer` unless told.
UPDATE "reviewers" SET "role" = 'admin';

-- Last seen: the latest session activity known so far.
UPDATE "reviewers" r SET "last_seen_at" = s.last_seen
  FROM (SELECT "reviewer_id", max("last_seen_at") AS last_seen FROM "reviewer_sessions" GROUP BY "reviewer_id") s
 WHERE s."reviewer_id" = r."id";
