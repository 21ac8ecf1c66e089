import type { SubmissionEvent } from '../api/types';

function describe(event: SubmissionEvent): string {
  if (event.type === 'transition') return event.from ? `${event.from} → ${event.to}` : `created as ${event.to}`;
  return event.type.replace('_', ' ');
}

export function EventHistory({ events }: { readonly events: readonly SubmissionEvent[] }) {
  return (
    <section aria-labelledby="history-heading">
      <h3 id="history-heading">History</h3>
      <ol className="history">
        {events.map((e) => (
          <li key={e.id}>
            <time dateTime={e.created_at}>{new Date(e.created_at).toLocaleString()}</time> {describe(e)} ·{' '}
            {e.actor ?? e.actor_type}
            {e.reason ? ` · ${e.reason}` : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}
