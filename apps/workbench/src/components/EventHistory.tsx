import type { SubmissionEvent } from '../api/types';
import { RegionFigure } from './Regions';

function describe(event: SubmissionEvent): string {
  if (event.type === 'transition') return event.from ? `${event.from} → ${event.to}` : `created as ${event.to}`;
  return event.type.replace('_', ' ');
}

/** The frame's events, oldest first; a decision with its note to the agent and its regions drawn on the frame. */
export function EventHistory({
  events,
  image = null,
}: {
  readonly events: readonly SubmissionEvent[];
  /** The frame's image, to draw a decision's regions on. */
  readonly image?: string | null;
}) {
  return (
    <section aria-labelledby="history-heading">
      <h3 id="history-heading">History</h3>
      <ol className="history">
        {events.map((e) => (
          <li key={e.id}>
            <time dateTime={e.created_at}>{new Date(e.created_at).toLocaleString()}</time> {describe(e)} ·{' '}
            {e.actor ?? e.actor_type}
            {e.rule && e.actor_type === 'system' ? ` · rule “${e.rule}”` : ''}
            {e.reason ? ` · ${e.reason}` : ''}
            {e.note ? ` · note: “${e.note}”` : ''}
            {e.regions && e.regions.length > 0 && (
              <div>
                <RegionFigure
                  src={image}
                  alt={`Regions: ${e.regions.map((r) => r.label).join(', ')}`}
                  regions={e.regions}
                />
              </div>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
