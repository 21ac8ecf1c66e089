import { useQuery } from '@tanstack/react-query';

export function App() {
  const health = useQuery({
    queryKey: ['healthz'],
    queryFn: async () => (await fetch('/healthz')).ok,
  });
  return (
    <main>
      <h1>Framedesk workbench</h1>
      <p>API: {health.isPending ? 'checking…' : health.data ? 'up' : 'unreachable'}</p>
    </main>
  );
}
