import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import { QueueWorkers } from '../components/QueueWorkers';

/** Queue depths, recently failed submissions with their reason, and retry. */
export function OpsScreen() {
  const client = useQueryClient();
  const ops = useQuery({ queryKey: ['ops'], queryFn: () => api.ops(), refetchInterval: 5_000 });
  const retry = useMutation({
    mutationFn: (id: string) => api.retry(id),
    onSettled: () => client.invalidateQueries({ queryKey: ['ops'] }),
  });
  if (ops.isPending) return <p>Loading…</p>;
  if (ops.isError)
    return <p role="alert">{ops.error instanceof ApiError ? ops.error.detail : 'Could not load ops data.'}</p>;
  const { queues, recently_failed: failed, submissions_by_status: byStatus } = ops.data;
  return (
    <section className="ops">
      <QueueWorkers />
      <h2>Queues</h2>
      <table aria-label="Queue depths">
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col">Waiting</th>
            <th scope="col">Active</th>
            <th scope="col">Delayed</th>
            <th scope="col">Failed</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(queues).map(([name, d]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{d.waiting}</td>
              <td>{d.active}</td>
              <td>{d.delayed}</td>
              <td>{d.failed}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Submissions:{' '}
        {Object.entries(byStatus)
          .map(([status, n]) => `${status} ${n}`)
          .join(' · ') || 'none'}
      </p>
      <h2>Recently failed</h2>
      {retry.error && <p role="alert">{retry.error instanceof ApiError ? retry.error.detail : 'Retry failed.'}</p>}
      {failed.length === 0 ? (
        <p className="empty">No failed submissions.</p>
      ) : (
        <ul aria-label="Recently failed">
          {failed.map((f) => (
            <li key={f.id} aria-label={`${f.title ?? f.id} — ${f.failure_code ?? 'failed'}`}>
              <strong>{f.title ?? f.id}</strong> · {f.channel_slug} · {f.agent_slug} · {f.media_type}
              <br />
              <code>{f.failure_code}</code> {f.failure_message} · {new Date(f.failed_at).toLocaleString()}{' '}
              <button
                type="button"
                disabled={retry.isPending}
                onClick={() => retry.mutate(f.id)}
                aria-label={`Retry ${f.title ?? f.id}`}
              >
                Retry
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
