import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import {
  createClient,
  type FramedeskClient,
  isFramedeskError,
  type MediaUpload,
  type Submission,
} from '@framedesk/client';
import { frameDateOf, isFrameDate, isSlug } from '@framedesk/domain';
import { type Command, type CommandContext, UsageError } from '../command';

const VIDEO_TYPES: Record<string, string> = { '.mp4': 'video/mp4', '.mov': 'video/quicktime', '.webm': 'video/webm' };
/** Where a processed frame waits for people, or where it ended. */
const SETTLED = ['needs_review', 'promoted', 'rejected', 'failed'] as const;
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

interface SubmitArgs {
  readonly file: string;
  readonly kind: 'image' | 'video';
  readonly contentType: string;
  readonly agent: string;
  readonly channel: string;
  readonly date: string;
  readonly title?: string;
  readonly caption?: string;
  readonly wait: boolean;
  readonly json: boolean;
  readonly timeoutMs: number;
}

function parse({ positionals, values, io }: CommandContext): SubmitArgs & { apiKey: string; baseUrl: string } {
  const str = (name: string) => values[name] as string | undefined;
  const file = positionals[0]!;
  const ext = extname(file).toLowerCase();
  const kind = ext === '.png' ? 'image' : VIDEO_TYPES[ext] ? 'video' : undefined;
  if (!kind) throw new UsageError(`${file}: only .png images and .mp4, .mov or .webm videos can be submitted`);
  const channel = str('channel');
  if (!channel || !isSlug(channel))
    throw new UsageError('--channel <slug> is required (lowercase letters, digits and single dashes)');
  const agent = str('agent') ?? io.env['FRAMEDESK_AGENT'];
  if (!agent || !isSlug(agent))
    throw new UsageError("--agent <slug> (or FRAMEDESK_AGENT) is required: the API key's agent");
  const date = str('date') ?? frameDateOf(new Date());
  if (!isFrameDate(date)) throw new UsageError(`--date ${date}: expected a real day as YYYYMMDD`);
  const apiKey = str('api-key') ?? io.env['FRAMEDESK_API_KEY'];
  if (!apiKey) throw new UsageError('an API key is required: --api-key KEY or FRAMEDESK_API_KEY');
  const baseUrl = str('base-url') ?? io.env['FRAMEDESK_BASE_URL'] ?? DEFAULT_BASE_URL;
  if (!/^https?:\/\/[^/]/.test(baseUrl)) throw new UsageError(`--base-url ${baseUrl}: expected an http(s) address`);
  const timeout = Number(str('timeout') ?? 300);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError('--timeout SECONDS must be a positive number');
  return {
    file,
    kind,
    contentType: kind === 'image' ? 'image/png' : VIDEO_TYPES[ext]!,
    agent,
    channel,
    date,
    title: str('title'),
    caption: str('caption'),
    wait: values['wait'] === true,
    json: values['json'] === true,
    timeoutMs: timeout * 1000,
    apiKey,
    baseUrl,
  };
}

async function submitImage(
  client: FramedeskClient,
  args: SubmitArgs,
  blob: Blob,
  say: (line: string) => void,
): Promise<Submission> {
  const submission = await client.submitFrame({
    metadata: {
      agent_slug: args.agent,
      channel_slug: args.channel,
      date: args.date,
      title: args.title,
      caption: args.caption,
    },
    image: blob,
    filename: basename(args.file),
  });
  say(`submitted ${submission.id} to ${submission.channel_slug}: ${submission.status}`);
  return submission;
}

async function submitVideo(
  client: FramedeskClient,
  args: SubmitArgs,
  blob: Blob,
  say: (line: string) => void,
): Promise<{ upload: MediaUpload; submission: Submission }> {
  const upload = await client.createVideoUpload({
    agent_slug: args.agent,
    channel_slug: args.channel,
    media_type: 'video',
    filename: basename(args.file),
    content_type: args.contentType,
    byte_size: blob.size,
    date: args.date,
    ...(args.title || args.caption ? { metadata: { title: args.title, caption: args.caption } } : {}),
  });
  say(`created upload ${upload.id} (${upload.upload_protocol}) for ${upload.submission_id}`);
  let shown = -1;
  await client.uploadVideo(upload, blob, {
    filename: basename(args.file),
    contentType: args.contentType,
    onProgress: ({ bytesSent, bytesTotal }) => {
      const percent = bytesTotal === 0 ? 100 : Math.floor((bytesSent / bytesTotal) * 100);
      if (percent === 100 ? shown < 100 : percent >= shown + 10) {
        shown = percent;
        say(`uploaded ${percent}% of ${bytesTotal} bytes`);
      }
    },
  });
  const submission = await client.getSubmission(upload.submission_id);
  say(`uploaded; ${submission.id} is ${submission.status}`);
  return { upload, submission };
}

export const submitCommands: Record<string, Command> = {
  submit: {
    usage:
      'submit <file.png|.mp4|.mov|.webm> --channel <slug> --agent <slug> [--date YYYYMMDD] [--title T] [--caption C] ' +
      '[--api-key KEY] [--base-url URL] [--wait [--timeout SECONDS]] [--json]   (the API does not say which agent a key belongs to: ' +
      `pass --agent or set FRAMEDESK_AGENT; the key may come from FRAMEDESK_API_KEY, the URL from FRAMEDESK_BASE_URL, default ${DEFAULT_BASE_URL})`,
    positionals: 1,
    options: {
      channel: { type: 'string' },
      agent: { type: 'string' },
      date: { type: 'string' },
      title: { type: 'string' },
      caption: { type: 'string' },
      'api-key': { type: 'string' },
      'base-url': { type: 'string' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(ctx) {
      const args = parse(ctx);
      const { io } = ctx;
      const info = await stat(args.file).catch(() => undefined);
      if (!info?.isFile()) throw new UsageError(`${args.file}: no such file`);
      // File-backed: a large video is read chunk by chunk as it is sent, never held whole.
      const blob = await openAsBlob(args.file, { type: args.contentType });
      const say = (line: string) => (args.json ? undefined : io.err(line));
      const client = createClient({ baseUrl: args.baseUrl, apiKey: args.apiKey });
      try {
        const sent =
          args.kind === 'image'
            ? { submission: await submitImage(client, args, blob, say) }
            : await submitVideo(client, args, blob, say);
        let submission = sent.submission;
        if (args.wait && !(SETTLED as readonly string[]).includes(submission.status)) {
          say(`waiting for ${submission.id} to reach ${SETTLED.join(', ')}…`);
          submission = await client.waitForStatus(submission.id, SETTLED, { timeoutMs: args.timeoutMs });
        }
        if (args.json) io.out(JSON.stringify({ ...sent, submission }));
        else
          io.out(
            `${submission.id} ${submission.status}${submission.failure ? ` (${submission.failure.code}: ${submission.failure.message})` : ''}`,
          );
        return submission.status === 'failed' ? 1 : 0;
      } catch (error) {
        if (!isFramedeskError(error)) throw error;
        const hint = error.code === 'network_error' ? `; is the API running at ${args.baseUrl}?` : '';
        const request = error.requestId ? ` [request ${error.requestId}]` : '';
        io.err(
          `framedesk: ${error.status ? `${error.status} ` : ''}${error.message}${request}${hint}`.replace(
            /\s*\n\s*/g,
            ' ',
          ),
        );
        return 1;
      }
    },
  },
};
