-- AlterTable
ALTER TABLE "submissions" ADD COLUMN     "trace_parent" TEXT;
