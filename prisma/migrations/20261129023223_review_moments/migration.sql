-- AlterTable
ALTER TABLE "submissions" ADD COLUMN     "review_moments" JSONB;

-- AlterTable
ALTER TABLE "review_notes" ADD COLUMN     "moments" JSONB;
