-- A run of an image while it runs (docs/reliability.md, "How crashes are blamed"): a row left
-- behind unrenewed is a run its worker died in; the rows a worker left together are one crash.

-- CreateTable
CREATE TABLE "processing_runs" (
    "id" TEXT NOT NULL,
    "submission_id" TEXT NOT NULL,
    "worker" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "crash_peers" INTEGER,

    CONSTRAINT "processing_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "processing_runs_submission_id_idx" ON "processing_runs"("submission_id");

-- CreateIndex
CREATE INDEX "processing_runs_worker_idx" ON "processing_runs"("worker");
