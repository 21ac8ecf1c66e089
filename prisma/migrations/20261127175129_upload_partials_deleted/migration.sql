-- AlterTable
ALTER TABLE "media_uploads" ADD COLUMN     "partials_deleted_at" TIMESTAMPTZ(3);

-- Sessions that ended unfinished before this migration: their partials go with the daily sweep of
-- the tus store, as before, and do not count against their agents' quotas.
UPDATE "media_uploads" SET "partials_deleted_at" = now()
WHERE "completed_at" IS NULL AND "expires_at" <= now();
