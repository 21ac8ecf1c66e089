import type { Database } from '@framedesk/db';

/**
 * An upload session past `expires_at` with no complete upload: its submission fails with
 * `upload_expired` (DESIGN.md §3). The expiry job, the API's upload door and the provider poll
 * all end a session this way, with one reason and one message the agent reads.
 */
export function failExpiredUpload(db: Database, submissionId: string): ReturnType<Database['transition']> {
  return db.transition({
    id: submissionId,
    to: 'failed',
    actor: { type: 'system' },
    onlyFrom: ['waiting_for_upload'],
    reason: 'upload session expired',
    patch: { failureCode: 'upload_expired', failureMessage: 'The upload session expired before its media arrived.' },
  });
}
