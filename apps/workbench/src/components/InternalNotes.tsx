import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ReviewMoment } from '@framedesk/contracts';
import { api } from '../api/client';
import type { Region, SubmissionDetail } from '../api/types';
import { Button, TextField } from '../ui';
import { RelativeTime } from './QueueMeta';
import { describeMoment, MomentForm } from './video/MomentForm';
import { frameRateOf } from './video/timecode';
import './feedback.css';

/** On a video, a note may carry time-coded items: taken from the player as the rejection's are. */
export interface NoteVideo {
  /** The player's current time, in seconds. */
  readonly time: number;
  /** The box drawn on the frame, for the next item added. */
  readonly region: Region | null;
  readonly onClearRegion: () => void;
}

/**
 * Reviewers' notes on the frame, oldest first, and a form to add one (on a video, with time-coded
 * items, drawn on the player's timeline). The agent never sees them.
 */
export function InternalNotes({
  submission,
  video,
}: {
  readonly submission: SubmissionDetail;
  readonly video?: NoteVideo | undefined;
}) {
  const client = useQueryClient();
  const [body, setBody] = useState('');
  const [moments, setMoments] = useState<ReviewMoment[]>([]);
  const add = useMutation({
    mutationFn: (text: string) => api.addNote(submission.id, text, video ? moments : []),
    onSuccess: () => {
      setBody('');
      setMoments([]);
      return client.invalidateQueries({ queryKey: ['submission', submission.id] });
    },
  });
  const notes = submission.internal_notes;
  const fps = frameRateOf(submission.measurement);
  return (
    <section className="internal-notes" aria-labelledby="internal-notes-heading">
      <h3 id="internal-notes-heading">Internal notes</h3>
      {notes.length === 0 ? (
        <p className="hint">None yet. The agent never sees these.</p>
      ) : (
        <ol>
          {notes.map((n) => (
            <li key={n.id}>
              <strong>{n.author_email}</strong> · <RelativeTime iso={n.created_at} />
              <p>{n.body}</p>
              {n.moments && n.moments.length > 0 && (
                <ul className="note-moments" aria-label="Time-coded items of this note">
                  {n.moments.map((m, i) => (
                    <li key={i}>{describeMoment(m, fps)}</li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
      <form
        aria-label="Add an internal note"
        onSubmit={(e) => {
          e.preventDefault();
          if (body.trim()) add.mutate(body.trim());
        }}
      >
        <TextField label="Internal note" multiline value={body} onChange={setBody} maxLength={2000} />
        {video && (
          <MomentForm
            title="Time-coded items of the note"
            time={video.time}
            region={video.region}
            onClearRegion={video.onClearRegion}
            moments={moments}
            onChange={setMoments}
            fps={fps}
          />
        )}
        <Button type="submit" size="sm" isDisabled={!body.trim() || add.isPending}>
          Add note
        </Button>
        {add.error && <p role="alert">{add.error.message}</p>}
      </form>
    </section>
  );
}
