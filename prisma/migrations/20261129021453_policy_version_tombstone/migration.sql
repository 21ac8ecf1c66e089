-- A cleared policy keeps its row with policy NULL (a tombstone) and its version counting on: a
-- set after a clear gets a version no worker's cache has seen (issue 43).
ALTER TABLE "channel_policies" ALTER COLUMN "policy" DROP NOT NULL;
