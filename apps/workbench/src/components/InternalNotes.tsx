import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import type { SubmissionDetail } from '../api/types';
import { Button, TextField } from '../ui';
import { RelativeTime } from './QueueMeta';
import './feedback.css';

/** Reviewers' notes on the frame, oldest first, and a form to add one. The agent never sees them. */
export function InternalNotes({ submission }: { readonly submission: SubmissionDetail }) {
  const client = useQueryClient();
  const [body, setBody] = useState('');
  const add = useMutation({
    mutationFn: (text: string) => api.addNote(submission.id, text),
    onSuccess: () => {
      setBody('');
      return client.invalidateQueries({ queryKey: ['submission', submission.id] });
    },
  });
  const notes = submission.internal_notes;
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
            </li>
          ))}
        </ol>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (body.trim()) add.mutate(body.trim());
        }}
      >
        <TextField label="Internal note" multiline value={body} onChange={setBody} maxLength={2000} />
        <Button type="submit" size="sm" isDisabled={!body.trim() || add.isPending}>
          Add note
        </Button>
        {add.error && <p role="alert">{add.error.message}</p>}
      </form>
    </section>
  );
}
