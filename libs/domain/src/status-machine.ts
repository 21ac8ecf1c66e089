/**
 * The one place where submission status transitions are decided (DESIGN.md §3).
 * Repositories turn `sourcesOf(to)` into a compare-and-set `WHERE status IN (...)`.
 */
export const SUBMISSION_STATUSES = [
  'received',
  'waiting_for_upload',
  'media_processing',
  'needs_review',
  'promoted',
  'rejected',
  'failed',
] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

export const ACTOR_TYPES = ['agent', 'reviewer', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface Transition {
  readonly from: SubmissionStatus;
  readonly to: SubmissionStatus;
  /** Who may cause it. */
  readonly actors: readonly ActorType[];
}

const NON_TERMINAL = ['received', 'waiting_for_upload', 'media_processing', 'needs_review'] as const;

export const TRANSITIONS: readonly Transition[] = [
  { from: 'received', to: 'media_processing', actors: ['system'] },
  { from: 'waiting_for_upload', to: 'media_processing', actors: ['system'] },
  { from: 'media_processing', to: 'needs_review', actors: ['system'] },
  // approval_defaults.requires_review = false: processed frames are promoted by the system.
  { from: 'media_processing', to: 'promoted', actors: ['system'] },
  // A review policy's `reject` rule decides without a person (docs/policies.md).
  { from: 'media_processing', to: 'rejected', actors: ['system'] },
  { from: 'needs_review', to: 'promoted', actors: ['reviewer'] },
  { from: 'needs_review', to: 'rejected', actors: ['reviewer'] },
  ...NON_TERMINAL.map((from) => ({ from, to: 'failed' as const, actors: ['system'] as const })),
  // An operator's explicit retry of failed processing re-enters the pipeline at its start.
  { from: 'failed', to: 'received', actors: ['reviewer'] },
  { from: 'failed', to: 'media_processing', actors: ['reviewer'] },
];

/**
 * A frame still in the processing pipeline: its media not yet processed. Its processing may start
 * (and crash, and be counted); the reconciler re-enqueues it when it goes quiet.
 */
export const PROCESSING_STATUSES = ['received', 'media_processing'] as const satisfies readonly SubmissionStatus[];

/** Statuses no worker or reconciler moves out of on its own. */
export const TERMINAL_STATUSES: readonly SubmissionStatus[] = ['promoted', 'rejected', 'failed'];

export function isTerminal(status: SubmissionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: SubmissionStatus, to: SubmissionStatus, actor?: ActorType): boolean {
  return TRANSITIONS.some((t) => t.from === from && t.to === to && (actor === undefined || t.actors.includes(actor)));
}

/** The statuses from which `to` may be reached (by `actor`, when given). */
export function sourcesOf(to: SubmissionStatus, actor?: ActorType): SubmissionStatus[] {
  return TRANSITIONS.filter((t) => t.to === to && (actor === undefined || t.actors.includes(actor))).map((t) => t.from);
}

export function isSubmissionStatus(value: unknown): value is SubmissionStatus {
  return typeof value === 'string' && (SUBMISSION_STATUSES as readonly string[]).includes(value);
}
