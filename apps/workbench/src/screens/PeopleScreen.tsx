import { useState } from 'react';
import { ApiError } from '../api/client';
import type { Person } from '../api/people';
import { ChannelPicker } from '../components/ChannelPicker';
import { InviteForm, InviteLink } from '../components/InviteForm';
import { useChannelCounts } from '../hooks/useQueue';
import { useChangePerson, useNewInvite, usePeople, useSignInOptions } from '../hooks/usePeople';
import { Button } from '../ui';
import './teams.css';

type Channels = readonly { slug: string; name: string }[];

const problem = (error: unknown) => (error instanceof ApiError ? error.detail : 'The server did not answer.');

function ChannelsCell({ person, channels }: { readonly person: Person; readonly channels: Channels }) {
  const change = useChangePerson();
  const [editing, setEditing] = useState<Set<string> | null>(null);
  if (person.role === 'admin') return <span>All channels</span>;
  return (
    <>
      <span>{person.channels.join(', ') || 'None'}</span>{' '}
      <Button
        variant="secondary"
        size="sm"
        aria-expanded={editing !== null}
        aria-label={`Edit channels of ${person.email}`}
        onPress={() => setEditing(editing ? null : new Set(person.channels))}
      >
        Edit
      </Button>
      {editing && (
        <form
          className="channel-editor"
          onSubmit={(e) => {
            e.preventDefault();
            change.mutate({ id: person.id, change: { channels: [...editing] } }, { onSuccess: () => setEditing(null) });
          }}
        >
          <ChannelPicker
            legend={`Channels of ${person.email}`}
            channels={channels}
            chosen={editing}
            onChange={setEditing}
          />
          <Button type="submit" variant="primary" size="sm" isDisabled={change.isPending}>
            Save channels
          </Button>
          {change.error && (
            <p role="alert" className="error">
              {problem(change.error)}
            </p>
          )}
        </form>
      )}
    </>
  );
}

function PersonRow({
  person,
  channels,
  passwordLogin,
}: {
  readonly person: Person;
  readonly channels: Channels;
  readonly passwordLogin: boolean;
}) {
  const change = useChangePerson();
  const newInvite = useNewInvite();
  const admin = person.role === 'admin';
  const disabled = person.disabled_at !== null;
  return (
    <tr className={disabled ? 'disabled' : undefined}>
      <th scope="row">
        <span className="email">{person.email}</span>
        {person.name && <span className="hint"> {person.name}</span>}
        {!person.has_password && passwordLogin && (
          <span className="hint">
            {' '}
            (no password){' '}
            <Button
              variant="secondary"
              size="sm"
              aria-label={`Password link for ${person.email}`}
              onPress={() => newInvite.mutate(person.id)}
            >
              Password link
            </Button>
          </span>
        )}
        {newInvite.data && <InviteLink email={person.email} invite={newInvite.data.invite} />}
      </th>
      <td>
        {admin ? 'Admin' : 'Reviewer'}{' '}
        <Button
          variant="secondary"
          size="sm"
          aria-label={`${admin ? 'Make reviewer' : 'Make admin'}: ${person.email}`}
          onPress={() => change.mutate({ id: person.id, change: { role: admin ? 'reviewer' : 'admin' } })}
        >
          {admin ? 'Make reviewer' : 'Make admin'}
        </Button>
      </td>
      <td>
        <ChannelsCell person={person} channels={channels} />
      </td>
      <td>
        {person.last_seen_at ? (
          <time dateTime={person.last_seen_at}>{new Date(person.last_seen_at).toLocaleString()}</time>
        ) : (
          'Never'
        )}
      </td>
      <td>
        {disabled ? 'Disabled' : 'Active'}{' '}
        <Button
          variant={disabled ? 'secondary' : 'danger'}
          size="sm"
          aria-label={`${disabled ? 'Enable' : 'Disable'} ${person.email}`}
          onPress={() => change.mutate({ id: person.id, change: { disabled: !disabled } })}
        >
          {disabled ? 'Enable' : 'Disable'}
        </Button>
        {(change.error || newInvite.error) && (
          <p role="alert" className="error">
            {problem(change.error ?? newInvite.error)}
          </p>
        )}
      </td>
    </tr>
  );
}

/** Admins: who can sign in, their role and channels, when they were last seen; invite, disable, enable. */
export function PeopleScreen() {
  const people = usePeople();
  const channels = useChannelCounts().data?.channels ?? [];
  const passwordLogin = useSignInOptions().data?.password_login ?? true;
  return (
    <section className="people" aria-labelledby="people-title">
      <h1 id="people-title">People</h1>
      <InviteForm channels={channels} />
      {people.isError && (
        <p role="alert" className="error">
          {problem(people.error)}
        </p>
      )}
      <table aria-label="People">
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col">Role</th>
            <th scope="col">Channels</th>
            <th scope="col">Last seen</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {(people.data?.people ?? []).map((p) => (
            <PersonRow key={p.id} person={p} channels={channels} passwordLogin={passwordLogin} />
          ))}
        </tbody>
      </table>
    </section>
  );
}
