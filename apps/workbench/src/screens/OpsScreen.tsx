import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import { QueueWorkers } from '../components/QueueWorkers';
import type { Ops } from '../api/types';
import { FailedFilters, FailedList } from '../components/FailedList';
import { useBulkSelection } from '../hooks/useBulkSelection';
import { useChannelCounts } from '../hooks/useQueue';
import { usePollInterval } from '../hooks/useReviewEvents';
import { useRoute } from '../hooks/useRoute';
import { Button, Skeleton } from '../ui';
import { AuditDownload } from '../components/AuditDownload';

function QueueDepths({ queues }: { readonly queues: Ops['queues'] }) {
  return (
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
  );
}

/** Queue depths, failed submissions (filtered by code and channel) with their reason, and retry. */
export function OpsScreen() {
  const client = useQueryClient();
  const route = useRoute();
  const filter = { code: route.query.get('failure_code') ?? '', channel: route.query.get('channel') ?? '' };
  const query = new URLSearchParams({
    ...(filter.code ? { failure_code: filter.code } : {}),
    ...(filter.channel ? { channel: filter.channel } : {}),
  }).toString();
  const refetchInterval = usePollInterval(5_000);
  const ops = useQuery({
    queryKey: ['ops', query],
    queryFn: () => api.ops(query),
    refetchInterval,
    placeholderData: keepPreviousData,
  });
  const channels = useChannelCounts();
  const failed = ops.data?.recently_failed ?? [];
  const bulk = useBulkSelection(failed.map((f) => f.id));
  const retry = useMutation({
    mutationFn: async (ids: readonly string[]) => {
      for (const id of ids) await api.retry(id);
    },
    onSuccess: () => bulk.clear(),
    onSettled: () => client.invalidateQueries({ queryKey: ['ops'] }),
  });
  if (ops.isPending) return <Skeleton lines={6} />;
  if (ops.isError)
    return <p role="alert">{ops.error instanceof ApiError ? ops.error.detail : 'Could not load ops data.'}</p>;
  const { queues, submissions_by_status: byStatus } = ops.data;
  return (
    <section className="ops">
      <QueueWorkers />
      <h2>Queues</h2>
      <QueueDepths queues={queues} />
      <p className="status-line">
        Submissions:{' '}
        {Object.entries(byStatus)
          .map(([status, n]) => `${status} ${n}`)
          .join(' · ') || 'none'}
      </p>
      <AuditDownload />
      <h2>Recently failed</h2>
      <FailedFilters
        value={filter}
        codes={ops.data.failure_codes ?? []}
        channels={channels.data?.channels ?? []}
        onChange={(v) => route.setQuery({ failure_code: v.code, channel: v.channel })}
      />
      {retry.error && <p role="alert">{retry.error instanceof ApiError ? retry.error.detail : 'Retry failed.'}</p>}
      {bulk.count > 0 && (
        <Button variant="primary" isDisabled={retry.isPending} onPress={() => retry.mutate(bulk.visible)}>
          {`Retry selected (${bulk.count})`}
        </Button>
      )}
      <FailedList
        failed={failed}
        checked={bulk.checked}
        onCheck={bulk.toggle}
        onRetry={(ids) => retry.mutate(ids)}
        busy={retry.isPending}
      />
    </section>
  );
}
