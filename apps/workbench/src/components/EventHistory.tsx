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
            {e.note ? <p className="history-note">Note to the agent: {e.note}</p> : null}
            {e.regions && e.regions.length > 0 ? (
              <ul className="history-regions" aria-label="Regions">
                {e.regions.map((r, i) => (
                  <li key={i}>
                    {r.label} (at {Math.round(r.x * 100)}%, {Math.round(r.y * 100)}%; {Math.round(r.width * 100)}% ×{' '}
                    {Math.round(r.height * 100)}%)
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
