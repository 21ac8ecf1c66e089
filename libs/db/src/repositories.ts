import { agentsRepository } from './agents.repository';
import { apiKeysRepository } from './api-keys.repository';
import { channelsRepository } from './channels.repository';
import { mediaObjectsRepository } from './media-objects.repository';
import type { DbClient } from './prisma';
import { reviewersRepository } from './reviewers.repository';
import { submissionsRepository } from './submissions.repository';

export function createRepositories(client: DbClient) {
  return {
    agents: agentsRepository(client),
    apiKeys: apiKeysRepository(client),
    channels: channelsRepository(client),
    mediaObjects: mediaObjectsRepository(client),
    reviewers: reviewersRepository(client),
    submissions: submissionsRepository(client),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
