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
  /** When an unfinished session's partial bytes were deleted (null: kept, or none ever). */
  readonly partialsDeletedAt: Date | null;
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

/** An agent's upload sessions still waiting for their bytes, and the bytes they declared. */
export interface OpenUploads {
  readonly sessions: number;
  readonly bytes: number;
}

export function mediaUploadsRepository(db: DbClient) {
  return {
    /**
     * The agent's open upload sessions (waiting, not expired) and the local sessions that expired
     * with their partial bytes not deleted yet: those bytes count until the expiry job deletes
     * them. With `lock` (inside a transaction) the agent's row is locked first, so two
     * concurrent creations cannot both pass a quota.
     */
    async openForAgent(agentId: string, at: Date, options: { lock?: boolean } = {}): Promise<OpenUploads> {
      if (options.lock) await db.$queryRaw`SELECT 1 FROM agents WHERE id = ${agentId} FOR UPDATE`;
      const found = await db.mediaUpload.aggregate({
        where: {
          completedAt: null,
          OR: [
            { expiresAt: { gt: at }, submission: { agentId, status: 'waiting_for_upload' } },
            {
              provider: 'local',
              partialsDeletedAt: null,
              submission: {
                agentId,
                OR: [{ status: 'waiting_for_upload' }, { status: 'failed', failureCode: 'upload_expired' }],
              },
            },
          ],
        },
        _count: { _all: true },
        _sum: { byteSize: true },
      });
      return { sessions: found._count._all, bytes: Number(found._sum.byteSize ?? 0n) };
    },
    /**
     * Records that an unfinished session's partial bytes are gone (it stops counting against the
     * quota); false when it had completed or was already recorded.
     */
    async markPartialsDeleted(id: string, at: Date): Promise<boolean> {
      const { count } = await db.mediaUpload.updateMany({
        where: { id, completedAt: null, partialsDeletedAt: null },
        data: { partialsDeletedAt: at },
      });
      return count === 1;
    },
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
