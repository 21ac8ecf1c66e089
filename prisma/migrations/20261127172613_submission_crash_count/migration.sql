-- AlterTable
ALTER TABLE "submissions" ADD COLUMN     "crash_count" INTEGER NOT NULL DEFAULT 0;
