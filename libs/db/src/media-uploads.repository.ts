import type { SubmissionStatus } from '@framedesk/domain';
import type { DbClient } from './prisma';

export interface MediaUploadRow {
  readonly id: string;
  readonly submissionId: string;
  readonly provider: string;
  readonly providerRef: string | null;
  readonly uploadUrl: string;
  readonly protocol: string;
  readonly byteSize: bigint;
  readonly contentType: string;
  readonly filename: string;
  readonly tokenHash: string | null;
  readonly receivedBytes: bigint;
  readonly completedAt: Date | null;
  readonly expiresAt: Date;
  readonly createdAt: Date;
}

/** An upload with the parts of its submission the API resource shows. */
export interface MediaUploadWithSubmission extends MediaUploadRow {
  readonly submission: {
    readonly id: string;
    readonly agentId: string;
    /** An upload has no status of its own: it reports its submission's. */
    readonly status: SubmissionStatus;
    readonly failureCode: string | null;
    readonly failureMessage: string | null;
  };
}

export interface NewMediaUpload {
  readonly id: string;
  readonly submissionId: string;
  readonly provider: string;
  readonly providerRef: string | null;
  readonly uploadUrl: string;
  readonly protocol: string;
  readonly byteSize: number;
  readonly contentType: string;
  readonly filename: string;
  readonly tokenHash: string | null;
  readonly expiresAt: Date;
}

const withSubmission = {
  submission: { select: { id: true, agentId: true, status: true, failureCode: true, failureMessage: true } },
} as const;

export function mediaUploadsRepository(db: DbClient) {
  return {
    /** Run inside the transaction that creates the submission. */
    create: (input: NewMediaUpload): Promise<MediaUploadRow> =>
      db.mediaUpload.create({ data: { ...input, byteSize: BigInt(input.byteSize) } }),
    findById: (id: string): Promise<MediaUploadWithSubmission | null> =>
      db.mediaUpload.findUnique({ where: { id }, include: withSubmission }),
    /** Another agent's upload is indistinguishable from a missing one. */
    findForAgent: (id: string, agentId: string): Promise<MediaUploadWithSubmission | null> =>
      db.mediaUpload.findFirst({ where: { id, submission: { agentId } }, include: withSubmission }),
    findBySubmission: (submissionId: string): Promise<MediaUploadRow | null> =>
      db.mediaUpload.findUnique({ where: { submissionId } }),
    findByTokenHash: (tokenHash: string): Promise<MediaUploadWithSubmission | null> =>
      db.mediaUpload.findUnique({ where: { tokenHash }, include: withSubmission }),
    findByProviderRef: (providerRef: string): Promise<MediaUploadWithSubmission | null> =>
      db.mediaUpload.findUnique({ where: { providerRef }, include: withSubmission }),
    async recordProgress(id: string, receivedBytes: number): Promise<void> {
      await db.mediaUpload.updateMany({ where: { id }, data: { receivedBytes: BigInt(receivedBytes) } });
    },
    /** Marks the media as arrived, once; false when it already had. */
    async markCompleted(id: string, at: Date): Promise<boolean> {
      const { count } = await db.mediaUpload.updateMany({
        where: { id, completedAt: null },
        data: { completedAt: at },
      });
      return count === 1;
    },
  };
}
