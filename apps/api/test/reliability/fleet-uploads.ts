// The fleet's tus uploads at the end of a run: which did not end with the clip stored, and for
// each of those what PostgreSQL holds (the session row and the submission's history), so a
// failure report says where the upload stopped.
import type { Fleet } from './fleet';
import type { Upload } from './fleet-tus';

export interface UploadNotIntact {
  readonly submissionId: string;
  readonly clientDone: boolean;
  readonly interruptions: number;
  /** The media_uploads row: completed_at set with the submission still waiting is a half completion. */
  readonly session: { id: string; completed_at: string | null; received_bytes: string; byte_size: string } | null;
  readonly original: { sha256: string; byte_size: string } | null;
  readonly status: string | null;
  readonly events: string[];
}

/** Uploads unfinished, or whose stored original is not the clip (sha256 and size), with their rows. */
export async function uploadsNotIntact(fleet: Fleet, uploads: Upload[], clip: Buffer): Promise<UploadNotIntact[]> {
  const ids = uploads.map((u) => u.submissionId);
  const q = <T extends Record<string, unknown>>(text: string) => fleet.sql.query<T>(text, [ids]).then((r) => r.rows);
  const originals = new Map(
    (
      await q<{ id: string; sha256: string; byte_size: string }>(
        "SELECT submission_id AS id, sha256, byte_size::text FROM media_objects WHERE kind = 'original' AND submission_id = ANY($1)",
      )
    ).map(({ id, ...o }) => [id, o]),
  );
  const bad = uploads.filter((u) => {
    const o = originals.get(u.submissionId);
    return !u.done || !o || o.sha256 !== u.sha256 || Number(o.byte_size) !== clip.length;
  });
  if (bad.length === 0) return [];
  const badIds = bad.map((u) => u.submissionId);
  const rows = async <T extends Record<string, unknown>>(text: string) =>
    (await fleet.sql.query<T>(text, [badIds])).rows;
  const sessions = new Map(
    (
      await rows<{ sid: string; id: string; completed_at: string | null; received_bytes: string; byte_size: string }>(
        `SELECT submission_id AS sid, id, completed_at::text, received_bytes::text, byte_size::text
           FROM media_uploads WHERE submission_id = ANY($1)`,
      )
    ).map(({ sid, ...row }) => [sid, row]),
  );
  const statuses = new Map(
    (await rows<{ id: string; status: string }>('SELECT id, status::text FROM submissions WHERE id = ANY($1)')).map(
      (r) => [r.id, r.status],
    ),
  );
  const events = await rows<{ sid: string; line: string }>(
    `SELECT submission_id AS sid,
            concat_ws(' ', created_at::text, type, coalesce(from_status::text, '-') || '→' || coalesce(to_status::text, '-'),
                      actor_type::text, reason) AS line
       FROM submission_events WHERE submission_id = ANY($1) ORDER BY created_at, id`,
  );
  return bad.map((u) => ({
    submissionId: u.submissionId,
    clientDone: u.done,
    interruptions: u.interruptions,
    session: sessions.get(u.submissionId) ?? null,
    original: originals.get(u.submissionId) ?? null,
    status: statuses.get(u.submissionId) ?? null,
    events: events.filter((e) => e.sid === u.submissionId).map((e) => e.line),
  }));
}
