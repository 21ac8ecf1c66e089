import { useChannelCounts } from './hooks/useQueue';
import { navigate, useRoute } from './hooks/useRoute';
import { useLogout, useSession } from './hooks/useSession';
import { LoginScreen } from './screens/LoginScreen';
import { OpsScreen } from './screens/OpsScreen';
import { QueueScreen } from './screens/QueueScreen';
import { TimelineScreen } from './screens/TimelineScreen';

function Link({ to, children, current }: { to: string; children: string; current: boolean }) {
  return (
    <a
      href={to}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

function Shell({ email, reasons }: { email: string; reasons: readonly string[] | undefined }) {
  const route = useRoute();
  const logout = useLogout();
  const channels = useChannelCounts();
  const timeline = /^\/channels\/([a-z0-9-]+)$/.exec(route.path);
  return (
    <>
      <header className="top">
        <strong>Framedesk</strong>
        <nav aria-label="Main">
          <Link to="/" current={route.path === '/'}>
            Queue
          </Link>
          {(channels.data?.channels ?? []).map((c) => (
            <Link key={c.slug} to={`/channels/${c.slug}`} current={timeline?.[1] === c.slug}>
              {`Timeline: ${c.name}`}
            </Link>
          ))}
          <Link to="/ops" current={route.path === '/ops'}>
            Ops
          </Link>
        </nav>
        <span className="who">{email}</span>
        <button type="button" onClick={() => logout.mutate()}>
          Sign out
        </button>
      </header>
      <main>
        {timeline ? (
          <TimelineScreen slug={timeline[1]!} />
        ) : route.path === '/ops' ? (
          <OpsScreen />
        ) : (
          <QueueScreen route={route} {...(reasons ? { reasons } : {})} />
        )}
      </main>
    </>
  );
}

export function App() {
  const session = useSession();
  if (session.isPending) return <p>Loading…</p>;
  if (session.isError) return <p role="alert">The API does not answer. Try again shortly.</p>;
  if (!session.data) return <LoginScreen />;
  return <Shell email={session.data.reviewer.email} reasons={session.data.reject_reasons} />;
}
