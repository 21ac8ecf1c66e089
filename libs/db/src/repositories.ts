import { accountsRepository } from './accounts.repository';
import { agentFeedbackRepository } from './agent-feedback.repository';
import { agentsRepository } from './agents.repository';
import { apiKeysRepository } from './api-keys.repository';
import { auditRepository } from './audit.repository';
import { backlogRepository } from './backlog.repository';
import { channelsRepository } from './channels.repository';
import { erasureRepository } from './erasure.repository';
import { feedbackRepository } from './feedback.repository';
import { imageIngestRepository } from './image-ingest.repository';
import { fingerprintsRepository } from './fingerprints.repository';
import { idempotencyRepository } from './idempotency.repository';
import { mediaObjectsRepository } from './media-objects.repository';
import { mediaVerifyRepository } from './media-verify.repository';
import { mediaUploadsRepository } from './media-uploads.repository';
import type { DbClient } from './prisma';
import { policiesRepository } from './policies.repository';
import { processingRunsRepository } from './processing-runs.repository';
import { retentionRepository } from './retention.repository';
import { reviewRepository } from './review.repository';
import { reviewerSessionsRepository } from './reviewer-sessions.repository';
import { reviewersRepository } from './reviewers.repository';
import { submissionsRepository } from './submissions.repository';
import { teamStatsRepository } from './team-stats.repository';

export function createRepositories(client: DbClient) {
  return {
    accounts: accountsRepository(client),
    agentFeedback: agentFeedbackRepository(client),
    agents: agentsRepository(client),
    apiKeys: apiKeysRepository(client),
    audit: auditRepository(client),
    backlog: backlogRepository(client),
    channels: channelsRepository(client),
    erasure: erasureRepository(client),
    feedback: feedbackRepository(client),
    fingerprints: fingerprintsRepository(client),
    idempotency: idempotencyRepository(client),
    imageIngest: imageIngestRepository(client),
    mediaObjects: mediaObjectsRepository(client),
    mediaUploads: mediaUploadsRepository(client),
    mediaVerify: mediaVerifyRepository(client),
    policies: policiesRepository(client),
    processingRuns: processingRunsRepository(client),
    retention: retentionRepository(client),
    review: reviewRepository(client),
    reviewerSessions: reviewerSessionsRepository(client),
    reviewers: reviewersRepository(client),
    submissions: submissionsRepository(client),
    teamStats: teamStatsRepository(client),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
