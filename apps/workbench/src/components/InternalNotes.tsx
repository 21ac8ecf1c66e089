import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ApiError } from '../api/client';
import type { SubmissionDetail } from '../api/types';
import { Button, TextField } from '../ui';

/** Reviewers' notes on a frame, oldest first, for the other reviewers only (never the agent). */
export function InternalNotes({ submission }: { readonly submission: SubmissionDetail }) {
  const client = useQueryClient();
  const [body, setBody] = useState('');
  const add = useMutation({
    mutationFn: () => api.addNote(submission.id, body.trim()),
    onSuccess: async () => {
      setBody('');
      await client.invalidateQueries({ queryKey: ['submission', submission.id] });
    },
  });
  return (
    <section aria-labelledby="internal-notes-heading">
      <h3 id="internal-notes-heading">Internal notes</h3>
      <p className="hint">Only reviewers see these; the agent never does.</p>
      <ol className="internal-notes">
        {submission.internal_notes.map((n) => (
          <li key={n.id}>
            <time dateTime={n.created_at}>{new Date(n.created_at).toLocaleString()}</time> {n.author_email}: {n.body}
          </li>
        ))}
      </ol>
      <TextField label="Add an internal note" value={body} onChange={setBody} multiline maxLength={2000} />
      <Button variant="secondary" size="sm" isDisabled={!body.trim() || add.isPending} onPress={() => add.mutate()}>
        Add note
      </Button>
      {add.error && <p role="alert">{add.error instanceof ApiError ? add.error.detail : 'Could not add the note.'}</p>}
    </section>
  );
}
