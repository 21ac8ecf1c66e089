import { ChannelSwitcher } from './components/ChannelSwitcher';
import { KeyMap } from './components/KeyMap';
import { useChannelCounts } from './hooks/useQueue';
import { useReviewEvents } from './hooks/useReviewEvents';
import { navigate, useRoute } from './hooks/useRoute';
import { useLogout, useSession } from './hooks/useSession';
import { LoginScreen } from './screens/LoginScreen';
import { OpsScreen } from './screens/OpsScreen';
import { PeopleScreen } from './screens/PeopleScreen';
import { QueueScreen } from './screens/QueueScreen';
import { TimelineScreen } from './screens/TimelineScreen';
import { WelcomeScreen } from './screens/WelcomeScreen';

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

/** One header row whatever the number of channels: screens, the channel switcher, the reviewer. */
function Shell({ email, admin, reasons }: { email: string; admin: boolean; reasons: readonly string[] | undefined }) {
  const route = useRoute();
  const logout = useLogout();
  const channels = useChannelCounts();
  useReviewEvents();
  const list = channels.data?.channels ?? [];
  const timeline = /^\/channels\/([a-z0-9-]+)$/.exec(route.path);
  const queueChannel = route.query.get('channel');
  const channel = timeline?.[1] ?? queueChannel;
  const timelineSlug = channel ?? list[0]?.slug;
  return (
    <>
      <header className="top">
        <strong className="brand">Framedesk</strong>
        <nav aria-label="Main">
          <Link to={queueChannel ? `/?channel=${queueChannel}` : '/'} current={route.path === '/'}>
            Queue
          </Link>
          {timelineSlug && (
            <Link to={`/channels/${timelineSlug}`} current={!!timeline}>
              Timeline
            </Link>
          )}
          {admin && (
            <Link to="/ops" current={route.path === '/ops'}>
              Ops
            </Link>
          )}
          {admin && (
            <Link to="/people" current={route.path === '/people'}>
              People
            </Link>
          )}
        </nav>
        {route.path !== '/ops' && route.path !== '/people' && (
          <ChannelSwitcher
            channels={list}
            current={channel ?? null}
            allowAll={!timeline}
            onPick={(slug) =>
              timeline
                ? slug && navigate(`/channels/${slug}`)
                : route.setQuery({ channel: slug, selected: null, open: null })
            }
          />
        )}
        <KeyMap />
        <span className="who">{email}</span>
        <button type="button" onClick={() => logout.mutate()}>
          Sign out
        </button>
      </header>
      <main>
        {timeline ? (
          <TimelineScreen slug={timeline[1]!} />
        ) : route.path === '/ops' && admin ? (
          <OpsScreen />
        ) : route.path === '/people' && admin ? (
          <PeopleScreen />
        ) : (
          <QueueScreen route={route} {...(reasons ? { reasons } : {})} />
        )}
      </main>
    </>
  );
}

export function App() {
  const session = useSession();
  const route = useRoute();
  if (route.path === '/welcome') return <WelcomeScreen />;
  if (session.isPending) return <p>Loading…</p>;
  if (session.isError) return <p role="alert">The API does not answer. Try again shortly.</p>;
  if (!session.data) return <LoginScreen />;
  return (
    <Shell
      email={session.data.reviewer.email}
      admin={session.data.reviewer.role === 'admin'}
      reasons={session.data.reject_reasons}
    />
  );
}
