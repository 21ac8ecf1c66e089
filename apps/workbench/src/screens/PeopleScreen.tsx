import { useState } from 'react';
import { ApiError } from '../api/client';
import type { Person } from '../api/people';
import { ChannelPicker } from '../components/ChannelPicker';
import { InviteForm, InviteLink } from '../components/InviteForm';
import { useChannelCounts } from '../hooks/useQueue';
import { useChangePerson, useNewInvite, usePeople, useSignInOptions } from '../hooks/usePeople';
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
      <button
        type="button"
        className="btn small"
        aria-expanded={editing !== null}
        aria-label={`Edit channels of ${person.email}`}
        onClick={() => setEditing(editing ? null : new Set(person.channels))}
      >
        Edit
      </button>
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
          <button type="submit" className="btn primary small" disabled={change.isPending}>
            Save channels
          </button>
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
            <button
              type="button"
              className="btn small"
              aria-label={`Password link for ${person.email}`}
              onClick={() => newInvite.mutate(person.id)}
            >
              Password link
            </button>
          </span>
        )}
        {newInvite.data && <InviteLink email={person.email} invite={newInvite.data.invite} />}
      </th>
      <td>
        {admin ? 'Admin' : 'Reviewer'}{' '}
        <button
          type="button"
          className="btn small"
          aria-label={`${admin ? 'Make reviewer' : 'Make admin'}: ${person.email}`}
          onClick={() => change.mutate({ id: person.id, change: { role: admin ? 'reviewer' : 'admin' } })}
        >
          {admin ? 'Make reviewer' : 'Make admin'}
        </button>
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
        <button
          type="button"
          className={disabled ? 'btn small' : 'btn small danger'}
          aria-label={`${disabled ? 'Enable' : 'Disable'} ${person.email}`}
          onClick={() => change.mutate({ id: person.id, change: { disabled: !disabled } })}
        >
          {disabled ? 'Enable' : 'Disable'}
        </button>
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
