-- CreateTable
CREATE TABLE "submission_fingerprints" (
    "submission_id" TEXT NOT NULL,
    "channel_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "perceptual_hash" BIGINT NOT NULL,
    "band_0" INTEGER NOT NULL,
    "band_1" INTEGER NOT NULL,
    "band_2" INTEGER NOT NULL,
    "band_3" INTEGER NOT NULL,
    "similar_count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "submission_fingerprints_pkey" PRIMARY KEY ("submission_id")
);

-- CreateIndex
CREATE INDEX "submission_fingerprints_channel_id_band_0_created_at_idx" ON "submission_fingerprints"("channel_id", "band_0", "created_at");

-- CreateIndex
CREATE INDEX "submission_fingerprints_channel_id_band_1_created_at_idx" ON "submission_fingerprints"("channel_id", "band_1", "created_at");

-- CreateIndex
CREATE INDEX "submission_fingerprints_channel_id_band_2_created_at_idx" ON "submission_fingerprints"("channel_id", "band_2", "created_at");

-- CreateIndex
CREATE INDEX "submission_fingerprints_channel_id_band_3_created_at_idx" ON "submission_fingerprints"("channel_id", "band_3", "created_at");

-- AddForeignKey
ALTER TABLE "submission_fingerprints" ADD CONSTRAINT "submission_fingerprints_submission_id_fkey" FOREIGN KEY ("submission_id") REFERENCES "submissions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
