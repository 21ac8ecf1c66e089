import type { ProjectConfig } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import type { AgentCaller } from './service-support';
import { DEFAULT_SMALL_VIDEO_MAX_BYTES } from './video-submissions';

/** What a channel accepts. The limits are the project's (the same for every channel in V1). */
export interface ChannelRules {
  readonly image_mime_types: readonly string[];
  /** Largest multipart frame submission (media.multipart_max_bytes). */
  readonly image_max_bytes: number;
  readonly video_mime_types: readonly string[];
  /** Largest video sent in one request; larger ones get a tus session. */
  readonly video_basic_max_bytes: number;
  readonly video_max_duration_seconds: number | null;
  readonly metadata_max_bytes: number;
  readonly click_zones_max: number;
  /** Whether a reviewer must promote a frame before it reaches the channel's timeline. */
  readonly requires_review: boolean;
  readonly initial_visibility: string;
}

export interface AgentChannel {
  readonly slug: string;
  readonly rules: ChannelRules;
}

export interface AgentChannelList {
  readonly agent_slug: string;
  readonly data: readonly AgentChannel[];
}

/** The channels an agent may submit to, with the rules a submission must meet. */
export function agentChannelsService(deps: { db: Database; config: ProjectConfig }) {
  const { media, api, approval_defaults: approval } = deps.config;
  const rules: ChannelRules = {
    image_mime_types: media.allowed_image_mime_types,
    image_max_bytes: media.multipart_max_bytes,
    video_mime_types: media.allowed_video_mime_types,
    video_basic_max_bytes: media.small_video_max_bytes ?? DEFAULT_SMALL_VIDEO_MAX_BYTES,
    video_max_duration_seconds: media.video_max_duration_seconds ?? null,
    metadata_max_bytes: api.metadata_max_bytes,
    click_zones_max: media.click_zones_max,
    requires_review: approval.requires_review,
    initial_visibility: approval.initial_visibility,
  };
  return {
    async listChannels(caller: AgentCaller): Promise<AgentChannelList> {
      const slugs = await deps.db.repos.agents.channelSlugs(caller.agentId);
      return { agent_slug: caller.agentSlug, data: slugs.map((slug) => ({ slug, rules })) };
    },
  };
}

export type AgentChannelsService = ReturnType<typeof agentChannelsService>;
