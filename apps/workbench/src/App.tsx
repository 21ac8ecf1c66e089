import { lazy, Suspense, useEffect, useState } from 'react';
import { ChannelSwitcher } from './components/ChannelSwitcher';
import { KeyMapButton, KeyMapDialog } from './components/KeyMap';
import { ThemeSwitch } from './components/ThemeSwitch';
import { useChannelCounts } from './hooks/useQueue';
import { useKeyboard } from './hooks/useKeyboard';
import { useReviewEvents } from './hooks/useReviewEvents';
import { navigate, useRoute } from './hooks/useRoute';
import { useLogout, useSession } from './hooks/useSession';
import { LoginScreen } from './screens/LoginScreen';
import { Button, Kbd, Skeleton, Toaster } from './ui';

// Screens load on first use, so the sign-in page ships only what it needs.
const loadQueue = () => import('./screens/QueueScreen');
// Most visits land on the queue: its code loads while the session is being checked.
if (window.location.pathname === '/') void loadQueue();
const QueueScreen = lazy(() => loadQueue().then((m) => ({ default: m.QueueScreen })));
const TimelineScreen = lazy(() => import('./screens/TimelineScreen').then((m) => ({ default: m.TimelineScreen })));
const OpsScreen = lazy(() => import('./screens/OpsScreen').then((m) => ({ default: m.OpsScreen })));
const PeopleScreen = lazy(() => import('./screens/PeopleScreen').then((m) => ({ default: m.PeopleScreen })));
const TeamScreen = lazy(() => import('./screens/TeamScreen').then((m) => ({ default: m.TeamScreen })));
const PoliciesScreen = lazy(() => import('./screens/PoliciesScreen').then((m) => ({ default: m.PoliciesScreen })));
const WelcomeScreen = lazy(() => import('./screens/WelcomeScreen').then((m) => ({ default: m.WelcomeScreen })));
const CommandPalette = lazy(() => import('./components/CommandPalette').then((m) => ({ default: m.CommandPalette })));

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

/** ⌘K / Ctrl-K anywhere (even while typing) opens the palette. */
function usePaletteKey(open: () => void) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        open();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
}

/** One header row whatever the number of channels: screens, the channel switcher, palette, keys, theme, the reviewer. */
function Shell({ email, admin, reasons }: { email: string; admin: boolean; reasons: readonly string[] | undefined }) {
  const route = useRoute();
  const logout = useLogout();
  const channels = useChannelCounts();
  const [keys, setKeys] = useState(false);
  const [palette, setPalette] = useState(false);
  useReviewEvents();
  useKeyboard({ '?': () => setKeys((o) => !o) });
  usePaletteKey(() => setPalette(true));
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
          {admin &&
            ADMIN_SCREENS.map(({ path, label }) => (
              <Link key={path} to={path} current={route.path === path}>
                {label}
              </Link>
            ))}
        </nav>
        {!ADMIN_SCREENS.some(({ path }) => path === route.path) && (
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
        <Button variant="ghost" size="sm" className="header-button palette-button" onPress={() => setPalette(true)}>
          Go to… <Kbd>Ctrl K</Kbd>
        </Button>
        <KeyMapButton onOpen={() => setKeys(true)} />
        <ThemeSwitch />
        <span className="who" title={email}>
          {email}
        </span>
        <Button variant="ghost" size="sm" className="header-button" onPress={() => logout.mutate()}>
          Sign out
        </Button>
      </header>
      <main>
        <Suspense fallback={<Skeleton lines={6} />}>
          {timeline ? (
            <TimelineScreen slug={timeline[1]!} />
          ) : route.path === '/ops' && admin ? (
            <OpsScreen />
          ) : route.path === '/people' && admin ? (
            <PeopleScreen />
          ) : route.path === '/team' && admin ? (
            <TeamScreen />
          ) : route.path === '/policies' && admin ? (
            <PoliciesScreen />
          ) : (
            <QueueScreen route={route} {...(reasons ? { reasons } : {})} />
          )}
        </Suspense>
      </main>
      <KeyMapDialog isOpen={keys} onOpenChange={setKeys} />
      {palette && (
        <Suspense fallback={null}>
          <CommandPalette
            isOpen={palette}
            onOpenChange={setPalette}
            channels={list}
            admin={admin}
            onShortcuts={() => setKeys(true)}
          />
        </Suspense>
      )}
      <Toaster />
    </>
  );
}

/** The admins' screens, in the header's order; they show no channel switcher. */
const ADMIN_SCREENS = [
  { path: '/ops', label: 'Ops' },
  { path: '/people', label: 'People' },
  { path: '/team', label: 'Team' },
  { path: '/policies', label: 'Policies' },
] as const;

export function App() {
  const session = useSession();
  const route = useRoute();
  if (route.path === '/welcome')
    return (
      <Suspense fallback={<Skeleton lines={4} />}>
        <WelcomeScreen />
      </Suspense>
    );
  if (session.isPending) return <Skeleton lines={4} className="app-loading" />;
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
