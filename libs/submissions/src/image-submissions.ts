import type { Readable } from 'node:stream';
import type { FrameMetadata, FrameSubmission } from '@framedesk/contracts';
import { newId } from '@framedesk/domain';
import { storageKeys } from '@framedesk/storage';
import {
  type AgentCaller,
  type Created,
  type IdempotencyToken,
  serviceSupport,
  type SubmissionsDependencies,
} from './service-support';
import { checkRevisionOf } from './revisions';
import { toFrameSubmission } from './submission-views';

/**
 * An original already in storage under its submission's id, hashed while it streamed there
 * (`stageImage`). Nothing refers to it until a create commits; `discard` removes it unless one did.
 */
export interface StagedImage {
  readonly submissionId: string;
  readonly key: string;
  readonly byteSize: number;
  readonly sha256: string;
  readonly contentType: string;
  discard(): Promise<void>;
}

/** The create's Idempotency-Key, for the one-statement path (which records the answer itself). */
export interface IdempotencyRequest {
  readonly apiKeyId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly retentionMs: number;
}

/** How often a staged original's discard is tried while the database or storage does not answer (≈ 2 min). */
const DISCARD_ATTEMPTS = 16;

/** Image frames: stage the original in one pass, then create in one statement (or the general path). */
export function imageSubmissions(deps: SubmissionsDependencies) {
  const now = deps.now ?? (() => new Date());
  const bucket = deps.config.storage.vendor_originals_bucket;
  const { enqueueImage, authorize, completeIdempotency } = serviceSupport(deps);

  /**
   * Deletes a staged original unless a committed create refers to it. A create that threw may
   * still have committed (the connection died after COMMIT, as in a failover): the agent's retry
   * then replays that frame, which needs this very original. So the database is asked first; while
   * it cannot answer, the question is asked again in the background (with back-off) and the caller
   * is not kept waiting. Given up after DISCARD_ATTEMPTS, the object stays (an orphan, not a loss).
   */
  async function discardUnreferenced(submissionId: string, key: string): Promise<void> {
    const attempt = async () => {
      if (await deps.db.repos.mediaObjects.isOriginalOf(submissionId, key)) return;
      await deps.storage.delete(bucket, key);
    };
    try {
      await attempt();
    } catch (first: unknown) {
      void (async () => {
        let error = first;
        for (let n = 1; n < DISCARD_ATTEMPTS; n++) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** n, 10_000)).unref());
          try {
            return await attempt();
          } catch (e) {
            error = e;
          }
        }
        deps.logger.warn({ err: error, key }, 'could not delete an unused original');
      })();
    }
  }

  return {
    /**
     * Streams an image's bytes once, straight into the storage driver's temporary object (which
     * hashes and counts them), under a new submission id. Storage errors reach the caller as
     * they are (a full disk is a dependency that may recover: the transport answers 503).
     */
    async stageImage(body: Readable, contentType: string): Promise<StagedImage> {
      const submissionId = newId('submission');
      const key = storageKeys.original(submissionId, 'png');
      const stored = await deps.storage.put(bucket, key, body, {
        contentType,
        maxBytes: deps.config.media.multipart_max_bytes,
      });
      return {
        submissionId,
        key,
        byteSize: stored.byteSize,
        sha256: stored.sha256,
        contentType,
        discard: () => discardUnreferenced(submissionId, key),
      };
    },

    /**
     * The common case in one statement (one round trip): completed idempotency record,
     * submission, first event and media row, when the agent may post to the channel and the key
     * is new. Null when nothing was written: the caller then takes `createImageSubmission`.
     */
    async createImageSubmissionAtOnce(input: {
      caller: AgentCaller;
      metadata: FrameMetadata;
      image: StagedImage;
      idempotency: IdempotencyRequest;
    }): Promise<Created<FrameSubmission> | null> {
      const { caller, metadata, image, idempotency } = input;
      // A revision is checked against the earlier frame: the general path does it in its transaction.
      if (metadata.agent_slug !== caller.agentSlug || metadata.revision_of) return null;
      const at = now();
      const { agent_slug: _a, channel_slug: channelSlug, date, ...described } = metadata;
      const visibility = deps.config.approval_defaults.initial_visibility;
      const title = described.title ?? null;
      const body = toFrameSubmission(
        {
          id: image.submissionId,
          status: 'received',
          mediaType: 'image',
          agentId: caller.agentId,
          channelId: '',
          date,
          metadata: described,
          title,
          visibility,
          failureCode: null,
          failureMessage: null,
          reviewDecision: null,
          reviewReason: null,
          reviewerId: null,
          reviewedAt: null,
          claimedBy: null,
          claimedUntil: null,
          width: null,
          height: null,
          durationMs: null,
          createdAt: at,
          updatedAt: at,
          agent: { slug: caller.agentSlug },
          channel: { slug: channelSlug },
          upload: null,
          media: [],
        },
        deps.variantUrl,
      );
      const { created, backlog } = await deps.db.repos.imageIngest.createAtOnce({
        id: image.submissionId,
        agentId: caller.agentId,
        channelSlug,
        date,
        metadata: described,
        title,
        visibility,
        now: at,
        original: {
          bucket,
          key: image.key,
          contentType: image.contentType,
          byteSize: image.byteSize,
          sha256: image.sha256,
        },
        idempotency: {
          apiKeyId: idempotency.apiKeyId,
          key: idempotency.key,
          fingerprint: idempotency.fingerprint,
          status: 202,
          body,
          expiresAt: new Date(at.getTime() + idempotency.retentionMs),
        },
      });
      if (!created) return null;
      await enqueueImage(caller, image.submissionId, backlog);
      return { status: 202, body };
    },

    /**
     * The general path, under a claimed Idempotency-Key: authorization (403), then submission,
     * first event, media row and the completed idempotency record in one transaction; then
     * `image.process` is enqueued (if that fails, the reconciler enqueues it later). The caller
     * discards the staged original when this throws.
     */
    async createImageSubmission(input: {
      caller: AgentCaller;
      metadata: FrameMetadata;
      image: StagedImage;
      idempotency: IdempotencyToken;
    }): Promise<Created<FrameSubmission>> {
      const { caller, metadata, image } = input;
      const channelId = await authorize(deps.db.repos, caller, metadata.agent_slug, metadata.channel_slug);
      const id = image.submissionId;
      const body = await deps.db.transaction(async (repos) => {
        const { agent_slug: _a, channel_slug: _c, date, revision_of, ...described } = metadata;
        const revisionOf = await checkRevisionOf(repos, revision_of, caller.agentId, channelId);
        const row = await repos.submissions.create(
          {
            revisionOf,
            id,
            status: 'received',
            mediaType: 'image',
            agentId: caller.agentId,
            channelId,
            date,
            metadata: described,
            title: described.title ?? null,
            visibility: deps.config.approval_defaults.initial_visibility,
          },
          { type: 'agent', id: caller.agentId },
        );
        await repos.mediaObjects.upsert({
          submissionId: id,
          kind: 'original',
          name: 'original',
          bucket,
          key: image.key,
          contentType: image.contentType,
          byteSize: image.byteSize,
          sha256: image.sha256,
        });
        const created = toFrameSubmission({ ...row, upload: null, media: [] }, deps.variantUrl);
        await completeIdempotency(repos, input.idempotency, 202, created);
        return created;
      });
      await enqueueImage(caller, id);
      return { status: 202, body };
    },
  };
}
