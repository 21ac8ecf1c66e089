import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentPrincipal } from '@framedesk/access';
import type { ProjectConfig } from '@framedesk/config';
import { LIST_LIMIT_MAX } from '@framedesk/contracts';
import type { Database } from '@framedesk/db';
import { DomainError, type FieldError, isSubmissionStatus } from '@framedesk/domain';
import {
  agentFeedback,
  type AgentChannelsService,
  type RequestValidators,
  type SubmissionsService,
} from '@framedesk/submissions';
import { fingerprintOf, runIdempotent } from '../http/idempotency';
import type { IdempotencySettings } from '../routes/frame-submissions.routes';
import { ENVELOPE_BYTES, jsonBytesOver, oneAtATime } from './limits';
import { toolError, toolResult } from './results';
import { argumentErrors, asArgumentErrors, stringArg, type ToolSchemas } from './schemas';

export interface McpToolDeps {
  readonly db: Database;
  readonly config: ProjectConfig;
  readonly submissions: SubmissionsService;
  readonly channels: AgentChannelsService;
  readonly validators: RequestValidators;
  readonly idempotency: IdempotencySettings;
  /** `toolSchemas(config)`, built once. */
  readonly schemas: ToolSchemas;
  /** MCP_LIST_MAX_BYTES: a list_submissions page ends early beyond this many bytes of JSON. */
  readonly listMaxBytes: number;
  /** Unexpected failures (the model only sees `internal_error`). */
  readonly onUnexpected: (error: unknown, tool: string) => void;
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The REST paths: a key used over MCP and over REST for the same request replays the same answer.
const FRAMES_PATH = '/v1/frame-submissions';
const UPLOADS_PATH = '/v1/media-uploads';

const imageTooLarge = (maxBytes: number) =>
  new DomainError('payload_too_large', `The image exceeds ${maxBytes} bytes (media.multipart_max_bytes).`);

/**
 * The base64 text of the image without a data: URL prefix and whitespace, refused from its length
 * alone when it decodes to more than `maxBytes` (issue 40: before anything reads it further).
 */
function imageText(input: string, maxBytes: number): string {
  const unprefixed = input.replace(/^data:[^,]{0,100};base64,/, '');
  const text = /\s/.test(unprefixed) ? unprefixed.replace(/\s+/g, '') : unprefixed;
  if (Math.floor((text.length * 3) / 4) > maxBytes + 2) throw imageTooLarge(maxBytes);
  return text;
}

/** The submission's bytes from the base64 text `imageText` gave, checked before any work. */
function decodePng(text: string, maxBytes: number, allowed: readonly string[]): Buffer {
  if (!allowed.map((t) => t.toLowerCase()).includes('image/png'))
    throw new DomainError('unsupported_media_type', `This service accepts images of types ${allowed.join(', ')}.`);
  if (!BASE64.test(text) || text.length % 4 === 1)
    throw new DomainError('invalid_request', 'image_base64 is not valid base64.');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > maxBytes) throw imageTooLarge(maxBytes);
  if (bytes.length < PNG_MAGIC.length || !bytes.subarray(0, PNG_MAGIC.length).equals(PNG_MAGIC))
    throw new DomainError(
      'unsupported_media_type',
      'The image is not a PNG (its first bytes are not the PNG signature). Only PNG frames are accepted; videos go through create_video_upload.',
    );
  return bytes;
}

/** The arguments without absent optional ones (an explicit undefined must not erase a default). */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

function keyOf(given: unknown): string {
  if (given === undefined || given === null) return randomUUID();
  if (typeof given !== 'string' || !UUID.test(given.trim()))
    throw new DomainError(
      'invalid_idempotency_key',
      'idempotency_key must be a UUID, e.g. "6f1c1c1e-8d5b-4c4a-9b3e-2a1e5d7c9f00".',
    );
  return given.trim().toLowerCase();
}

type ToolArgs = Record<string, unknown>;
interface ToolOutput {
  readonly body: unknown;
  readonly text: string;
}

interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly schema: keyof ToolSchemas;
  readonly handler: (deps: McpToolDeps, caller: AgentPrincipal, args: ToolArgs) => Promise<ToolOutput>;
}

/**
 * REST's bounds on a call's arguments, checked before they are validated: their bytes (the
 * metadata part's limit for a frame, the JSON body's for an upload) and the number of click zones.
 */
function checkBounds(config: ProjectConfig, tool: string, args: ToolArgs): void {
  const { image_base64: _image, idempotency_key: _key, ...fields } = args;
  const metadataMax = config.api.metadata_max_bytes;
  if (tool === 'submit_frame' && jsonBytesOver(fields, metadataMax))
    throw new DomainError(
      'metadata_too_large',
      `The metadata (every argument but image_base64 and idempotency_key) exceeds ${metadataMax} bytes (api.metadata_max_bytes).`,
    );
  if (jsonBytesOver(fields, metadataMax + ENVELOPE_BYTES))
    throw new DomainError('payload_too_large', `The arguments exceed ${metadataMax + ENVELOPE_BYTES} bytes.`);
  const zones =
    tool === 'submit_frame' ? fields['click_zones'] : (fields['metadata'] as ToolArgs | null)?.['click_zones'];
  const max = config.media.click_zones_max;
  if (Array.isArray(zones) && zones.length > max)
    throw argumentErrors([
      {
        pointer: tool === 'submit_frame' ? '/click_zones' : '/metadata/click_zones',
        detail: `must NOT have more than ${max} items (media.click_zones_max)`,
      },
    ]);
}

async function submitFrame(deps: McpToolDeps, caller: AgentPrincipal, args: ToolArgs): Promise<ToolOutput> {
  const { image_base64, idempotency_key, ...fields } = args;
  const errors: FieldError[] = [];
  const image64 = stringArg(image_base64, 'image_base64', errors, { required: true });
  if (errors.length > 0) throw argumentErrors(errors);
  const maxBytes = deps.config.media.multipart_max_bytes;
  const imageBase64 = imageText(image64!, maxBytes);
  const key = keyOf(idempotency_key);
  const parsed = { agent_slug: caller.agentSlug, ...defined(fields) };
  const metadata = asArgumentErrors('/metadata', () => deps.validators.frameMetadata(parsed));
  const bytes = decodePng(imageBase64, maxBytes, deps.config.media.allowed_image_mime_types);
  // Stored once under the new submission's id (hashed on the way); discarded unless a create commits it.
  const image = await deps.submissions.stageImage(Readable.from([bytes]), 'image/png');
  const fingerprint = fingerprintOf('POST', FRAMES_PATH, { metadata: parsed, image_sha256: image.sha256 });
  let result;
  try {
    result = await runIdempotent(
      deps.db,
      { apiKeyId: caller.apiKeyId, key, fingerprint, ...deps.idempotency },
      (token) => deps.submissions.createImageSubmission({ caller, metadata, image, idempotency: token }),
    );
  } catch (error) {
    await image.discard();
    throw error;
  }
  if (result.replayed) await image.discard();
  const body = result.body as { id: string; status: string };
  return {
    body,
    text: `Submitted ${body.id} (status ${body.status}${result.replayed ? ', replayed' : ''}). Follow it with get_submission.`,
  };
}

async function getSubmission(deps: McpToolDeps, caller: AgentPrincipal, args: ToolArgs): Promise<ToolOutput> {
  const errors: FieldError[] = [];
  const id = stringArg(args['submission_id'], 'submission_id', errors, { required: true });
  if (errors.length > 0) throw argumentErrors(errors);
  const body = await deps.submissions.getSubmission(caller, id!);
  return { body, text: `${body.id}: ${body.status}` };
}

async function listSubmissions(deps: McpToolDeps, caller: AgentPrincipal, args: ToolArgs): Promise<ToolOutput> {
  const errors: FieldError[] = [];
  const channelSlug = stringArg(args['channel_slug'], 'channel_slug', errors);
  const status = stringArg(args['status'], 'status', errors);
  const cursor = stringArg(args['cursor'], 'cursor', errors);
  const limit = args['limit'] ?? undefined;
  if (status !== undefined && !isSubmissionStatus(status))
    errors.push({ pointer: '/status', detail: 'is not a status' });
  if (limit !== undefined && (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > LIST_LIMIT_MAX))
    errors.push({ pointer: '/limit', detail: `must be an integer from 1 to ${LIST_LIMIT_MAX}` });
  if (errors.length > 0) throw argumentErrors(errors);
  const body = await deps.submissions.listSubmissions(
    caller,
    {
      ...(channelSlug !== undefined ? { channel_slug: channelSlug } : {}),
      ...(status !== undefined && isSubmissionStatus(status) ? { status } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
      ...(limit !== undefined ? { limit: limit as number } : {}),
    },
    deps.listMaxBytes,
  );
  const lines = body.data.map((s) => `${s.id} ${s.status} ${s.channel_slug} ${s.date}`);
  return {
    body,
    text: `${body.data.length} submission(s)${body.has_more ? `; more with cursor ${body.next_cursor}` : ''}.\n${lines.join('\n')}`,
  };
}

async function listChannels(deps: McpToolDeps, caller: AgentPrincipal, _args: ToolArgs): Promise<ToolOutput> {
  const body = await deps.channels.listChannels(caller);
  return {
    body,
    text: `Agent ${body.agent_slug} may submit to: ${body.data.map((c) => c.slug).join(', ') || '(no channel)'}.`,
  };
}

async function createVideoUpload(deps: McpToolDeps, caller: AgentPrincipal, args: ToolArgs): Promise<ToolOutput> {
  const { idempotency_key, ...fields } = args;
  const key = keyOf(idempotency_key);
  const parsed = { agent_slug: caller.agentSlug, media_type: 'video', ...defined(fields) };
  const request = asArgumentErrors('', () => deps.validators.mediaUploadRequest(parsed));
  const result = await runIdempotent(
    deps.db,
    {
      apiKeyId: caller.apiKeyId,
      key,
      fingerprint: fingerprintOf('POST', UPLOADS_PATH, parsed),
      ...deps.idempotency,
    },
    (token) => deps.submissions.createVideoUpload({ caller, request, idempotency: token }),
  );
  const upload = result.body as { id: string; upload_url: string; upload_protocol: string; expires_at: string };
  const how =
    upload.upload_protocol === 'tus'
      ? `Send the bytes with tus 1.0 to upload_url: PATCH with Tus-Resumable: 1.0.0, Content-Type: application/offset+octet-stream and Upload-Offset (HEAD tells the offset to resume from), before ${upload.expires_at}.`
      : `Send the bytes in one multipart/form-data POST to upload_url with the file in the field "file", before ${upload.expires_at}.`;
  return {
    body: { ...upload, how_to_upload: how },
    text: `Upload session ${upload.id} (${upload.upload_protocol}) at ${upload.upload_url}. ${how}`,
  };
}

/** The tools an agent sees, in the order they are listed. */
const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'submit_frame',
    title: 'Submit an image frame',
    description:
      'Submit one PNG image as a frame to a channel. Returns the created submission (status "received"); ' +
      'processing and review continue asynchronously: follow it with get_submission until its status is ' +
      'needs_review, promoted, rejected or failed. Use list_channels first to see where you may submit.',
    schema: 'submitFrame',
    handler: submitFrame,
  },
  {
    name: 'get_submission',
    title: 'Get a submission',
    description:
      "A submission of this API key's agent, with its status (received, waiting_for_upload, media_processing, " +
      'needs_review, promoted, rejected, failed), failure reason and links to delivered variants.',
    schema: 'getSubmission',
    handler: getSubmission,
  },
  {
    name: 'list_submissions',
    title: 'List submissions',
    description:
      "This API key's agent's submissions, newest first, one page at a time. Pass next_cursor back as cursor " +
      'for the next page (has_more says whether there is one).',
    schema: 'listSubmissions',
    handler: listSubmissions,
  },
  {
    name: 'list_channels',
    title: 'List channels',
    description:
      'The channels this API key may submit to, with their rules: accepted image and video types, size ' +
      'limits, click-zone limit, and whether a reviewer must promote a frame before it is published.',
    schema: 'listChannels',
    handler: listChannels,
  },
  {
    name: 'create_video_upload',
    title: 'Create a video upload session',
    description:
      'Open an upload session for a video (this also creates its submission). Returns upload_url, ' +
      'upload_protocol (basic or tus), expires_at and submission_id. The bytes are not sent through MCP: ' +
      'your program sends the file to upload_url (no API key needed), then you follow submission_id with get_submission.',
    schema: 'createVideoUpload',
    handler: createVideoUpload,
  },
  {
    name: 'get_feedback',
    title: "Get this agent's feedback",
    description:
      "This API key's agent's record since a date (GET /v1/agents/{slug}/feedback): counts by status, promoted and " +
      'rejected shares, top reject reasons, median time to a decision, and the latest rejections with their notes, ' +
      'regions (fractions of the image) and, for a video, moments (time-coded items: at or start/end in seconds, a ' +
      'label, maybe a region) to correct and send again with revision_of.',
    schema: 'getFeedback',
    handler: async (deps, caller, args) => {
      // agent_slug is the REST path's ({slug}), named as submit_frame names it; the rest its query.
      const { agent_slug: slug, ...rest } = defined(args);
      const query = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)]));
      const body = await agentFeedback(deps.db, caller, slug === undefined ? caller.agentSlug : String(slug), query);
      return {
        body,
        text: `${body.total} frame(s) since ${body.since}; ${body.rejections.length} rejection(s) listed.`,
      };
    },
  },
];

/** One MCP server for one request of one authenticated agent (stateless: nothing outlives the request). */
export function createMcpServer(deps: McpToolDeps, caller: AgentPrincipal): McpServer {
  const server = new McpServer({ name: 'framedesk', version: '1.0.0' });
  // A batch's calls arrive together; they run one after another (issue 43).
  const inTurn = oneAtATime();
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: deps.schemas[tool.schema] },
      (args: ToolArgs): Promise<CallToolResult> =>
        inTurn(async () => {
          try {
            checkBounds(deps.config, tool.name, args);
            const { body, text } = await tool.handler(deps, caller, args);
            return toolResult(body, text);
          } catch (error) {
            return toolError(error, (e) => deps.onUnexpected(e, tool.name));
          }
        }),
    );
  }
  return server;
}
