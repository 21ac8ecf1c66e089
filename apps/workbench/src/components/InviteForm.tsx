import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/client';
import type { Invite, Role } from '../api/people';
import { useInvitePerson } from '../hooks/usePeople';
import { Button, Select, TextField } from '../ui';
import { ChannelPicker } from './ChannelPicker';

/** The link to hand over (no mail is sent), with a copy button. */
export function InviteLink({ email, invite }: { readonly email: string; readonly invite: Invite }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="invite-link">
      <TextField
        label={`One-time sign-in link for ${email} (works until ${new Date(invite.expires_at).toLocaleString()})`}
        isReadOnly
        value={invite.url}
        onChange={() => undefined}
        onFocus={(input) => input.select()}
      />
      <Button size="sm" onPress={() => void navigator.clipboard?.writeText(invite.url).then(() => setCopied(true))}>
        {copied ? 'Copied' : 'Copy link'}
      </Button>
    </div>
  );
}

/**
 * Invite by email: the account is created at once (reviewer of the ticked channels, or admin).
 * With passwords on, the answer is a one-time link the admin hands over; with single sign-on
 * only, the person simply signs in.
 */
export function InviteForm({ channels }: { readonly channels: readonly { slug: string; name: string }[] }) {
  const invite = useInvitePerson();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('reviewer');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate(
      { email, role, channels: role === 'admin' ? [] : [...chosen] },
      {
        onSuccess: () => {
          setEmail('');
          setChosen(new Set());
        },
      },
    );
  };
  const result = invite.data;
  return (
    <form className="invite-form" onSubmit={onSubmit} aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <TextField label="Email" type="email" isRequired autoComplete="off" value={email} onChange={setEmail} />
      <Select
        label="Role"
        value={role}
        onChange={(v) => setRole(v as Role)}
        options={[
          { id: 'reviewer', label: 'Reviewer: the ticked channels only' },
          { id: 'admin', label: 'Admin: every channel, ops and people' },
        ]}
      />
      {role === 'reviewer' && (
        <ChannelPicker legend="Channels" channels={channels} chosen={chosen} onChange={setChosen} />
      )}
      <Button type="submit" variant="primary" isDisabled={invite.isPending}>
        Invite
      </Button>
      <div role="status">
        {result && result.invite && <InviteLink email={result.person.email} invite={result.invite} />}
        {result && !result.invite && <p>{result.person.email} can sign in with single sign-on now.</p>}
      </div>
      {invite.error && (
        <p role="alert" className="error">
          {invite.error instanceof ApiError ? invite.error.detail : 'The server did not answer.'}
        </p>
      )}
    </form>
  );
}
