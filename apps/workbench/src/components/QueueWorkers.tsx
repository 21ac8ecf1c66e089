import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { OpsWorkers } from '../api/types';

export function formatAge(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** Banners, workers per queue and held jobs, from data (tested on its own). */
export function QueueWorkersView({ data }: { data: OpsWorkers }) {
  return (
    <div className="queue-workers">
      {data.banners.map((banner) => (
        <p key={banner} role="alert" className="banner">
          {banner}
        </p>
      ))}
      <table aria-label="Workers per queue">
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col">Workers</th>
            <th scope="col">Not consumed because</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(data.queues).map(([name, q]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{q.workers}</td>
              <td>{q.unavailable.join('; ') || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.server_faults.length > 0 && (
        <>
          <h3>Held by a server fault</h3>
          <ul aria-label="Held by a server fault">
            {data.server_faults.map((f) => (
              <li key={`${f.queue}/${f.job}/${f.submission_id ?? ''}`}>
                <code>{f.submission_id ?? f.job}</code> · {f.queue} · {f.reason} · for {formatAge(f.age_seconds)} ·{' '}
                {f.tries} {f.tries === 1 ? 'try' : 'tries'}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** The ops page's "who can work" block; polls with the rest of the page. */
export function QueueWorkers() {
  const workers = useQuery({ queryKey: ['ops', 'workers'], queryFn: () => api.opsWorkers(), refetchInterval: 5_000 });
  if (!workers.data) return null;
  return <QueueWorkersView data={workers.data} />;
}
